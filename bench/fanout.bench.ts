/**
 * fanout: `POST /api/v2/exec` to N online agents (1, 100, 1,000, 10,000), timed from the request until the
 * response, which the hub sends once every target's result is in. Target (issue 5): 10,000 targets ≤ 2 s p99.
 *
 * The hub is its own process over HTTPS with its built-in CA (auto TLS), SQLite, rate limits off; the agents
 * are simulated (FleetSimulator: hello, an echo answer to exec) in child processes of ≤ 5,000 each, connected
 * over wss:// to the hub's certificate. Baseline, measured in the same run and interleaved with the hub's
 * repetitions: a bare `ws` server over HTTPS with the same kind of certificate (ECDSA P-256, own CA) that sends
 * one frame of the same size to N connected plain `ws` clients (their own child processes, ≤ 5,000 each) which
 * echo a reply of the result's size, timed the same way (an HTTP request that returns when N echoes are back).
 *
 * Issue 29: the hub's own event-loop lag (its /metrics, p99 and max of the window) during each fan-out, against
 * its lag over an idle window of the same run; BENCH_AGENTS holds more agents than the largest N targets (the
 * cluster's 16,667 on a process) so the per-agent state a fan-out walks is the real size.
 *
 * Knobs: BENCH_MAX_TARGETS (default 10,000; caps N), BENCH_AGENTS (agents held; default BENCH_MAX_TARGETS),
 * BENCH_SIZES (comma-separated N, default 1,100,1000,10000 up to the cap), BENCH_REPS (repetitions per N;
 * default 20 up to 100 targets, 10 at 1,000, 5 at 10,000), BENCH_SKIP_RAW (true: no baseline, for quick runs), BENCH_CONNECT_SECONDS (600),
 * BENCH_PROFILE_DIR (run the hub with --cpu-prof and write its profile there when it stops; the figures are
 * then slower than without).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SimulatedAgentIdentity } from '@svc/testkit';
import {
  createCertificateAuthority,
  issueServerCertificate,
} from '../apps/hub/src/platform/tls/certificates.js';
import {
  cleanup,
  connectedAgents,
  percentile,
  prepareFleet,
  startFleetProcesses,
  type PreparedFleet,
  startHubProcess,
  waitForAgents,
} from './lib/fleet.js';
import { jsonClient, type JsonClient } from './lib/https-json.js';
import { freePort, startTs, type Child } from './lib/processes.js';
import { spawnNode } from './lib/proc-stats.js';
import { writeResult, type Figure } from './lib/report.js';
import { idleLag, lagDuring, lagText, type LoopLag } from './lib/loop-lag.js';

/** The run whose lag p99 was the highest (with its max). */
function worstLag(lags: readonly LoopLag[]): LoopLag {
  return lags.reduce((a, b) => (b.p99Ms > a.p99Ms ? b : a), { p99Ms: 0, maxMs: 0 });
}

const maxTargets = Math.min(20_000, Math.max(1, Number(process.env.BENCH_MAX_TARGETS ?? 10_000)));
const sizeList = process.env.BENCH_SIZES
  ? process.env.BENCH_SIZES.split(',').map(Number)
  : [1, 100, 1000, 10_000].concat(maxTargets);
const sizes = [...new Set(sizeList.filter((n) => n >= 1 && n <= maxTargets))].sort((a, b) => a - b);
const agentCount = Math.max(maxTargets, Number(process.env.BENCH_AGENTS ?? 0));
const skipRaw = process.env.BENCH_SKIP_RAW === 'true';
/** How long the fleet may take to connect (a shared machine under load is slow to do 16,000 handshakes). */
const connectLimitS = Math.max(60, Number(process.env.BENCH_CONNECT_SECONDS ?? 600));
const perProcess = 5000;
const profileDir = process.env.BENCH_PROFILE_DIR;

/** startHubProcess, or the same hub under --cpu-prof when BENCH_PROFILE_DIR is set. */
async function startHub(fleet: PreparedFleet): Promise<{ origin: string; stop: () => Promise<void> }> {
  if (!profileDir) {
    const hub = await startHubProcess(fleet);
    return { origin: hub.origin, stop: () => hub.child.stop() };
  }
  const httpsPort = await freePort();
  const child = await spawnNode(
    ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', 'tsx', 'apps/hub/src/main.ts'],
    {
      SVC_DATA_DIR: fleet.dataDir,
      SVC_TLS_MODE: 'auto',
      SVC_HOST: '127.0.0.1',
      SVC_HTTPS_PORT: String(httpsPort),
      SVC_HTTP_PORT: String(await freePort()),
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_LOG_LEVEL: 'info',
    },
    'svc hub on',
    120_000,
    120_000,
  );
  return { origin: `https://127.0.0.1:${httpsPort}`, stop: () => child.stop() };
}

function repsFor(n: number): number {
  if (process.env.BENCH_REPS) return Math.max(1, Number(process.env.BENCH_REPS));
  return n <= 100 ? 20 : n <= 1000 ? 10 : 5;
}

interface RawBaseline {
  origin: string;
  ca: string;
  server: Child;
  clients: Child[];
  dir: string;
  stop(): Promise<void>;
}

/** The bare ws server and its echo clients, with a fresh CA and server certificate like the hub's. */
async function startRawBaseline(count: number): Promise<RawBaseline> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-raw-'));
  const now = new Date();
  const ca = await createCertificateAuthority(now, 'bench raw CA');
  const leaf = await issueServerCertificate(ca, ['127.0.0.1', 'localhost'], now);
  const files = {
    ca: path.join(dir, 'ca.pem'),
    cert: path.join(dir, 'cert.pem'),
    key: path.join(dir, 'key.pem'),
  };
  fs.writeFileSync(files.ca, ca.certPem);
  fs.writeFileSync(files.cert, leaf.certPem);
  fs.writeFileSync(files.key, leaf.keyPem, { mode: 0o600 });
  const port = await freePort();
  const clients: Child[] = [];
  const server = await startTs(
    'bench/lib/raw-echo-server.ts',
    { RAW_PORT: String(port), RAW_CERT_FILE: files.cert, RAW_KEY_FILE: files.key },
    'raw echo server ready',
  );
  const stop = async () => {
    await Promise.all(clients.map((c) => c.stop()));
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (let at = 0; at < count; at += perProcess) {
      const child = await startTs(
        'bench/lib/raw-echo-clients.ts',
        {
          RAW_URL: `wss://127.0.0.1:${port}`,
          RAW_CA_FILE: files.ca,
          RAW_COUNT: String(Math.min(perProcess, count - at)),
        },
        '{"started"',
        300_000,
      );
      clients.push(child);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { origin: `https://127.0.0.1:${port}`, ca: ca.certPem, server, clients, dir, stop };
}

interface Timing {
  hub: number[];
  raw: number[];
  /** The hub's event-loop lag over each of its runs. */
  lag: LoopLag[];
}

async function execOnce(client: JsonClient, origin: string, key: string, targets: string[]): Promise<number> {
  const res = await client.request('POST', `${origin}/api/v2/exec`, {
    body: { targets, command: 'echo bench', timeout: 30 },
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`POST /exec answered ${res.status}: ${res.text.slice(0, 300)}`);
  const { summary } = (JSON.parse(res.text) as { data: { summary: { total: number; ok: number } } }).data;
  if (summary.ok !== targets.length) {
    throw new Error(`POST /exec to ${targets.length}: only ${summary.ok} ok (${JSON.stringify(summary)})`);
  }
  return res.ms;
}

async function broadcastOnce(client: JsonClient, origin: string, n: number): Promise<number> {
  const res = await client.request('POST', `${origin}/broadcast?n=${n}`);
  if (res.status !== 200) throw new Error(`raw broadcast to ${n} answered ${res.status}: ${res.text}`);
  return res.ms;
}

const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`;

export async function runFanoutBench(): Promise<void> {
  const fleetSize = agentCount;
  const rawSize = sizes[sizes.length - 1] ?? 1;
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`provisioning ${fleetSize} agents…`);
  const fleet = await prepareFleet(fleetSize);
  const assetIds = fleet.identityFiles.flatMap((file) =>
    (JSON.parse(fs.readFileSync(file, 'utf8')) as SimulatedAgentIdentity[]).map((i) => i.assetId),
  );
  const hub = await startHub(fleet);
  let agents: Awaited<ReturnType<typeof startFleetProcesses>> | null = null;
  let raw: RawBaseline | null = null;
  const hubClient = jsonClient({ ca: fleet.ca });
  let rawClient: JsonClient | null = null;
  try {
    agents = await startFleetProcesses(fleet, hub.origin);
    const connectMs = await waitForAgents(
      hub.origin,
      fleet.ownerKey,
      fleet.ca,
      fleetSize,
      connectLimitS * 1000,
    );
    if (connectMs === null) {
      const n = await connectedAgents(hub.origin, fleet.ownerKey, fleet.ca);
      throw new Error(`only ${n} of ${fleetSize} agents connected in ${connectLimitS} s`);
    }
    log(`${fleetSize} agents connected in ${(connectMs / 1000).toFixed(1)} s`);
    // Settle (presence writes of the connect), then the idle baseline of the hub's lag.
    await new Promise((r) => setTimeout(r, 5000));
    const idle = await idleLag(hubClient, hub.origin, fleet.ownerKey, 5000);
    log(`hub event-loop lag idle: ${lagText(idle)}`);
    if (!skipRaw) {
      log('starting the raw baseline…');
      raw = await startRawBaseline(rawSize);
      rawClient = jsonClient({ ca: raw.ca });
    }

    const timings = new Map<number, Timing>();
    for (const n of sizes) {
      const targets = assetIds.slice(0, n);
      // One warm-up each (JIT, TLS session, first statements), then hub and raw in turns.
      await execOnce(hubClient, hub.origin, fleet.ownerKey, targets);
      if (raw && rawClient) await broadcastOnce(rawClient, raw.origin, n);
      const timing: Timing = { hub: [], raw: [], lag: [] };
      for (let r = 0; r < repsFor(n); r++) {
        const run = await lagDuring(hubClient, hub.origin, fleet.ownerKey, () =>
          execOnce(hubClient, hub.origin, fleet.ownerKey, targets),
        );
        timing.hub.push(run.result);
        timing.lag.push(run.lag);
        if (raw && rawClient) timing.raw.push(await broadcastOnce(rawClient, raw.origin, n));
      }
      timings.set(n, timing);
      const worst = worstLag(timing.lag);
      log(
        `N=${n}: hub p50 ${ms(percentile(timing.hub, 50))} p99 ${ms(percentile(timing.hub, 99))}; lag ${lagText(worst)}${raw ? `; raw p50 ${ms(percentile(timing.raw, 50))} p99 ${ms(percentile(timing.raw, 99))}` : ''}`,
      );
    }
    const stillConnected = await connectedAgents(hub.origin, fleet.ownerKey, fleet.ca);

    const figures: Figure[] = [];
    for (const n of sizes) {
      const t = timings.get(n) as Timing;
      const hubP99 = percentile(t.hub, 99);
      const worst = worstLag(t.lag);
      figures.push(
        {
          name: `${n.toLocaleString('en-US')} target${n === 1 ? '' : 's'}: hub p50 / p99 (${t.hub.length} runs)`,
          value: `${ms(percentile(t.hub, 50))} / ${ms(hubP99)}`,
          ...(n === 10_000 ? { target: 'p99 ≤ 2 s', met: hubP99 <= 2000 } : {}),
        },
        {
          name: '  hub event-loop lag during the runs (worst run)',
          value: `${lagText(worst)}; ratio of p99 to idle ${(worst.p99Ms / idle.p99Ms).toFixed(1)}`,
          ...(n === 10_000 ? { target: 'p99 < 100 ms', met: worst.p99Ms < 100 } : {}),
        },
      );
      if (raw) {
        const rawP50 = percentile(t.raw, 50);
        const rawP99 = percentile(t.raw, 99);
        figures.push(
          { name: '  raw ws broadcast/echo p50 / p99', value: `${ms(rawP50)} / ${ms(rawP99)}` },
          {
            name: '  ratio hub / raw (p50, p99)',
            value: `${(percentile(t.hub, 50) / rawP50).toFixed(1)}, ${(hubP99 / rawP99).toFixed(1)}`,
          },
        );
      }
    }
    if (!sizes.includes(10_000)) {
      figures.push({
        name: '10,000 targets',
        value: `not run (BENCH_MAX_TARGETS=${maxTargets})`,
        target: 'p99 ≤ 2 s',
      });
    }
    figures.push({ name: 'hub event-loop lag over 5 s idle (baseline)', value: lagText(idle) });
    figures.push({
      name: 'agents still connected after the runs',
      value: `${stillConnected} of ${fleetSize}`,
    });
    writeResult({
      benchmark: 'fanout',
      command: `${['BENCH_AGENTS', 'BENCH_SIZES', 'BENCH_REPS', 'BENCH_SKIP_RAW']
        .filter((k) => process.env[k])
        .map((k) => `${k}=${process.env[k]} `)
        .join('')}BENCH_MAX_TARGETS=${maxTargets} npm run bench -- fanout`,
      summary: `POST /api/v2/exec {targets: N asset ids, command: "echo bench"} to N online simulated agents, timed at the client from sending the request to the end of the response (the hub answers when all N results are in; each run also writes N audit rows). The hub's event-loop lag is its own /metrics (\`svc_hub_nodejs_eventloop_lag_p99_seconds\` and \`_max\`, a 10 ms timer's delay) over a window opened just before each run and read just after it; the baseline is the same over 5 s idle with every agent connected. The hub is one process over HTTPS with its built-in CA (auto TLS, ECDSA P-256), SQLite, rate limits off; ${fleetSize.toLocaleString('en-US')} agents (FleetSimulator, echo answers) in child processes of ≤ ${perProcess.toLocaleString('en-US')} over wss://. Baseline in the same run, interleaved run by run: a bare \`ws\` server over HTTPS with the same kind of certificate sends a frame of the same size to N plain \`ws\` clients (child processes of ≤ ${perProcess.toLocaleString('en-US')}) that echo a reply of the result's size, timed the same way. p99 is the nearest-rank percentile of the runs, so with 5–10 runs it is the slowest one. Everything shares the machine's ${os.cpus().length} cores.`,
      figures,
    });
  } finally {
    hubClient.close();
    rawClient?.close();
    await raw?.stop();
    await agents?.stop();
    await hub.stop();
    cleanup(fleet);
  }
}
