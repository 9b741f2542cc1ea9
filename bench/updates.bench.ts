/**
 * updates: a dry run (`POST /api/v2/update-runs`, mode dry_run, concurrency 100) on N simulated agents (default
 * 1,000), timed from the request until the run has every target's result (polled every 20 ms), against an exec
 * fan-out (`POST /api/v2/exec`) to the same N agents in the same run, in turns. The agents answer with the
 * testkit's fake package manager (no real manager runs): the figure is the hub's own cost of a run (records,
 * events, slices bounded by concurrency) next to a plain fan-out.
 *
 * Knobs: BENCH_AGENTS (default 1,000), BENCH_REPS (default 5), BENCH_CONNECT_SECONDS (300).
 */
import fs from 'node:fs';
import type { SimulatedAgentIdentity } from '@svc/testkit';
import {
  cleanup,
  connectedAgents,
  percentile,
  prepareFleet,
  startFleetProcesses,
  startHubProcess,
  waitForAgents,
} from './lib/fleet.js';
import { jsonClient, type JsonClient } from './lib/https-json.js';
import { writeResult } from './lib/report.js';

const agentCount = Math.max(1, Number(process.env.BENCH_AGENTS ?? 1000));
const reps = Math.max(1, Number(process.env.BENCH_REPS ?? 5));
const connectLimitS = Math.max(60, Number(process.env.BENCH_CONNECT_SECONDS ?? 300));
const ms = (v: number) => `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms`;

async function execOnce(client: JsonClient, origin: string, key: string, targets: string[]): Promise<number> {
  const res = await client.request('POST', `${origin}/api/v2/exec`, {
    body: { targets, command: 'echo bench', timeout: 30 },
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`POST /exec answered ${res.status}: ${res.text.slice(0, 300)}`);
  return res.ms;
}

async function dryRunOnce(
  client: JsonClient,
  origin: string,
  key: string,
  targets: string[],
): Promise<number> {
  const headers = { authorization: `Bearer ${key}` };
  const started = performance.now();
  const res = await client.request('POST', `${origin}/api/v2/update-runs`, {
    body: { targets, mode: 'dry_run', selection: 'all', concurrency: 100 },
    headers,
  });
  if (res.status !== 201)
    throw new Error(`POST /update-runs answered ${res.status}: ${res.text.slice(0, 300)}`);
  const id = (JSON.parse(res.text) as { data: { id: string } }).data.id;
  for (;;) {
    const got = await client.request('GET', `${origin}/api/v2/update-runs/${id}`, { headers });
    const run = (JSON.parse(got.text) as { data: { status: string; counts: { ok: number; total: number } } })
      .data;
    if (run.status !== 'running' && run.status !== 'scheduled') {
      if (run.counts.ok !== targets.length)
        throw new Error(`dry run on ${targets.length}: ${run.status}, ${JSON.stringify(run.counts)}`);
      return performance.now() - started;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function runUpdatesBench(): Promise<void> {
  const log = (line: string) => process.stdout.write(`${line}\n`);
  log(`provisioning ${agentCount} agents…`);
  const fleet = await prepareFleet(agentCount);
  const targets = fleet.identityFiles.flatMap((file) =>
    (JSON.parse(fs.readFileSync(file, 'utf8')) as SimulatedAgentIdentity[]).map((i) => i.assetId),
  );
  const hub = await startHubProcess(fleet);
  let agents: Awaited<ReturnType<typeof startFleetProcesses>> | null = null;
  const client = jsonClient({ ca: fleet.ca });
  try {
    agents = await startFleetProcesses(fleet, hub.origin, { FLEET_UPDATES: '1' });
    const connectMs = await waitForAgents(
      hub.origin,
      fleet.ownerKey,
      fleet.ca,
      agentCount,
      connectLimitS * 1000,
    );
    if (connectMs === null) {
      const n = await connectedAgents(hub.origin, fleet.ownerKey, fleet.ca);
      throw new Error(`only ${n} of ${agentCount} agents connected in ${connectLimitS} s`);
    }
    log(`${agentCount} agents connected in ${(connectMs / 1000).toFixed(1)} s`);
    await new Promise((r) => setTimeout(r, 3000));
    await execOnce(client, hub.origin, fleet.ownerKey, targets);
    await dryRunOnce(client, hub.origin, fleet.ownerKey, targets);
    const exec: number[] = [];
    const dry: number[] = [];
    for (let r = 0; r < reps; r++) {
      exec.push(await execOnce(client, hub.origin, fleet.ownerKey, targets));
      dry.push(await dryRunOnce(client, hub.origin, fleet.ownerKey, targets));
    }
    const dryP99 = percentile(dry, 99);
    const execP99 = percentile(exec, 99);
    log(`N=${agentCount}: dry run p99 ${ms(dryP99)}, exec p99 ${ms(execP99)}`);
    writeResult({
      benchmark: 'updates',
      command: 'npm run bench -- updates',
      summary:
        `A dry run (concurrency 100) on ${agentCount} simulated agents, to every result stored, against an ` +
        `exec fan-out to the same agents in the same run (${reps} repetitions each, in turns).`,
      figures: [
        { name: `dry run, ${agentCount} targets, p99 to all results`, value: ms(dryP99) },
        { name: `dry run p50`, value: ms(percentile(dry, 50)) },
        { name: `exec fan-out, ${agentCount} targets, p99`, value: ms(execP99) },
        { name: 'ratio dry run / exec (p99)', value: `${(dryP99 / execP99).toFixed(1)}×` },
      ],
      notes: [
        'The dry run works at most 100 targets at once (its bound) and writes each result as it comes; exec sends all at once and answers in one body.',
        'Time to all results is read by polling GET /update-runs/{id} every 20 ms (adds up to ~20 ms).',
      ],
    });
  } finally {
    await agents?.stop();
    await hub.child.stop();
    cleanup(fleet);
  }
}
