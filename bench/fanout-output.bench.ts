/**
 * fanout-output: `POST /api/v2/exec` to N agents (default 300) that each answer 1 MiB of stdout and 1 MiB of
 * stderr, once as a JSON body and once as NDJSON (issue 11, item 3: before the result budget this answered
 * 500 `RangeError: Invalid string length` after 43 s, with the hub near 1.5 GB). It reports what the client
 * got and the hub process's peak RSS (VmRSS sampled every 20 ms) for each form. Bounded: one request per form.
 *
 * Knobs: BENCH_FANOUT_OUTPUT_AGENTS (default 300, at most 1,000).
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import { execLimits } from '@svc/protocol';
import type { SimulatedAgentIdentity } from '@svc/testkit';
import { cleanup, prepareFleet, startFleetProcesses, startHubProcess, waitForAgents } from './lib/fleet.js';
import { rssBytesOf } from './lib/proc-stats.js';
import { writeResult, type Figure } from './lib/report.js';

const agents = Math.min(1000, Math.max(1, Number(process.env.BENCH_FANOUT_OUTPUT_AGENTS ?? 300)));
const mib = 2 ** 20;
const cutMarker = Buffer.from('"truncated":true');

interface Answer {
  status: number;
  bytes: number;
  lines: number;
  truncated: number;
  firstByteMs: number;
  totalMs: number;
  rssBefore: number;
  rssPeak: number;
}

async function fanOut(
  origin: string,
  key: string,
  ca: string,
  pid: number,
  targets: string[],
  accept: string,
): Promise<Answer> {
  const rssBefore = rssBytesOf(pid);
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, rssBytesOf(pid));
  }, 20);
  const started = performance.now();
  try {
    const answer = await new Promise<Omit<Answer, 'totalMs' | 'rssBefore' | 'rssPeak'>>((resolve, reject) => {
      const request = https.request(
        new URL('/api/v2/exec', origin),
        {
          method: 'POST',
          ca,
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', accept },
        },
        (res) => {
          let bytes = 0;
          let lines = 0;
          let truncated = 0;
          let firstByteMs = -1;
          let carry = Buffer.alloc(0);
          res.on('data', (chunk: Buffer) => {
            if (firstByteMs < 0) firstByteMs = performance.now() - started;
            bytes += chunk.length;
            for (const b of chunk) if (b === 10) lines += 1;
            // Counts the marker across chunk edges without keeping the body.
            const window = Buffer.concat([carry, chunk]);
            for (let at = window.indexOf(cutMarker); at >= 0; at = window.indexOf(cutMarker, at + 1)) {
              truncated += 1;
            }
            carry = window.subarray(Math.max(0, window.length - cutMarker.length + 1));
          });
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, bytes, lines, truncated, firstByteMs });
          });
          res.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(JSON.stringify({ targets, command: 'cat big', timeout: 300 }));
    });
    return { ...answer, totalMs: performance.now() - started, rssBefore, rssPeak };
  } finally {
    clearInterval(sampler);
  }
}

function describe(form: string, a: Answer): Figure[] {
  const body = a.lines > 0 ? `${a.lines - 1} result lines + summary` : 'one JSON body';
  return [
    { name: `${form}: status, what came`, value: `${a.status}, ${body}, ${(a.bytes / mib).toFixed(1)} MiB` },
    { name: `${form}: results with streams cut by the budget`, value: `${a.truncated} of ${agents}` },
    {
      name: `${form}: first byte / last byte at the client`,
      value: `${(a.firstByteMs / 1000).toFixed(1)} s / ${(a.totalMs / 1000).toFixed(1)} s`,
    },
    {
      name: `${form}: hub RSS before → peak`,
      value: `${Math.round(a.rssBefore / mib)} → ${Math.round(a.rssPeak / mib)} MiB`,
    },
  ];
}

export async function runFanoutOutputBench(): Promise<void> {
  const fleet = await prepareFleet(agents);
  const hub = await startHubProcess(fleet);
  const pid = hub.child.process.pid ?? 0;
  const fleetProcesses = await startFleetProcesses(fleet, hub.origin, {
    FLEET_EXEC_OUTPUT_BYTES: String(execLimits.streamBytes),
  });
  try {
    const connectedMs = await waitForAgents(hub.origin, fleet.ownerKey, fleet.ca, agents, 120_000);
    if (connectedMs === null) throw new Error(`not all ${agents} agents connected`);
    const targets = fleet.identityFiles.flatMap((file) =>
      (JSON.parse(fs.readFileSync(file, 'utf8')) as SimulatedAgentIdentity[]).map((i) => i.assetId),
    );
    const json = await fanOut(hub.origin, fleet.ownerKey, fleet.ca, pid, targets, 'application/json');
    const ndjson = await fanOut(hub.origin, fleet.ownerKey, fleet.ca, pid, targets, 'application/x-ndjson');
    writeResult({
      benchmark: 'fanout-output',
      command: `BENCH_FANOUT_OUTPUT_AGENTS=${agents} npm run bench -- fanout-output`,
      summary: `POST /api/v2/exec {targets: ${agents} asset ids} to ${agents} simulated agents (FleetSimulator over wss://, one child process) that each answer 1 MiB of stdout and 1 MiB of stderr (${((agents * 2 * mib) / mib).toFixed(0)} MiB in all), first with Accept: application/json, then with Accept: application/x-ndjson, one request each. The result budget is ${execLimits.fanOutResultBytes / mib} MiB of JSON-escaped stdout + stderr held at once. The hub is one process over HTTPS (auto TLS), SQLite, rate limits off; the client reads as fast as it can and keeps nothing. Everything shares the machine's ${os.cpus().length} cores. No baseline: the figure to compare is the issue's, 500 after 43 s with the hub near 1.5 GB.`,
      figures: [...describe('JSON', json), ...describe('NDJSON', ndjson)],
      notes: [
        'NDJSON cuts streams only while the client is more than the budget behind; here the hub receives the agents’ answers faster than it can write them out over TLS on shared cores, so later lines are cut.',
        'RSS includes the agent frames the channel receives at once (all agents answer together); V8 keeps its heap after the peak.',
        `1-minute load average at the end: ${os.loadavg()[0]?.toFixed(1) ?? '?'} on ${os.cpus().length} cores.`,
      ],
    });
  } finally {
    await fleetProcesses.stop();
    await hub.child.stop();
    cleanup(fleet);
  }
}
