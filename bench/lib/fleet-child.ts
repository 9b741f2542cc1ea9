/**
 * One simulator process of a benchmark fleet (a process holds at most a few thousand sockets; the sandbox caps
 * open files per process). Reads its identities from FLEET_FILE (a JSON array), connects them to FLEET_ORIGIN
 * with the CA in FLEET_CA_FILE, and prints a JSON status line every second.
 */
import fs from 'node:fs';
import { FleetSimulator, fakePackageManager, type SimulatedAgentIdentity } from '@svc/testkit';

const identities = JSON.parse(
  fs.readFileSync(process.env.FLEET_FILE ?? '', 'utf8'),
) as SimulatedAgentIdentity[];
const caFile = process.env.FLEET_CA_FILE;
// FLEET_EXEC_OUTPUT_BYTES=<n>: exec answers n bytes of stdout and n of stderr (a fan-out of large results).
const outputBytes = Number(process.env.FLEET_EXEC_OUTPUT_BYTES ?? 0);
const output = outputBytes > 0 ? 'o'.repeat(outputBytes) : '';
// FLEET_UPDATES=1: each agent has a fake package manager (apt, three updates) and says so (capability updates).
const withUpdates = process.env.FLEET_UPDATES === '1';
const fleet = new FleetSimulator({
  ...(withUpdates ? { handlers: fakePackageManager(), capabilities: ['exec', 'metrics', 'updates'] } : {}),
  ...(outputBytes > 0
    ? {
        handlers: {
          'exec.run': () => ({
            exit_code: 0,
            signal: null,
            stdout: output,
            stderr: output,
            truncated: false,
            timed_out: false,
            duration_ms: 1,
          }),
        },
      }
    : {}),
  origin: process.env.FLEET_ORIGIN ?? '',
  identities,
  ...(caFile ? { ca: fs.readFileSync(caFile, 'utf8') } : {}),
  connectConcurrency: Number(process.env.FLEET_CONCURRENCY ?? 100),
  heartbeatIntervalMs: Number(process.env.FLEET_HEARTBEAT_MS ?? 30_000),
  metricsIntervalMs: Number(process.env.FLEET_METRICS_MS ?? 60_000),
  // FLEET_RESUME_TLS=0: full handshakes on every reconnect (agents before decision 0072), for comparison.
  resumeTls: process.env.FLEET_RESUME_TLS !== '0',
  // The real agent's reconnect policy (@svc/protocol, decision 0089), unchanged.
  // FLEET_ATTEMPTS_FILE=<path>: every connect attempt is kept and written there as JSON when the process stops.
  recordAttempts: Boolean(process.env.FLEET_ATTEMPTS_FILE),
});

const report = () => {
  process.stdout.write(`${JSON.stringify({ fleet: fleet.stats, rss: process.memoryUsage().rss })}\n`);
};
setInterval(report, 1000).unref();
process.on('SIGTERM', () => {
  fleet.stop();
  const attemptsFile = process.env.FLEET_ATTEMPTS_FILE;
  if (attemptsFile) fs.writeFileSync(attemptsFile, JSON.stringify(fleet.connectLog()));
  process.exit(0);
});
const started = await fleet.start();
process.stdout.write(`${JSON.stringify({ started })}\n`);
setInterval(() => undefined, 1 << 30);
