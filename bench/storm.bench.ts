/**
 * storm: N agents connected, then the hub restarts (SIGTERM, start again on the same data and ports); the
 * agents reconnect by themselves with the real agent's reconnect policy (@svc/protocol, decision 0089). Figures:
 * time until all are back, split into the agents' share (still in their backoff after the hub answered again)
 * and the hub's (connect to welcome, hub CPU per reconnect from /proc), connect failures, the API's answers
 * during the storm, hub RSS after the storm against the steady state before it (the baseline).
 * Target (issue 5): 10,000 agents back within 60 s, no error spike, memory bounded; issue 31: within 15 s, and
 * the reconnects resume their TLS sessions (the simulated agents offer their last ticket, as the real agent does;
 * the hub keeps its ticket keys across the restart, decision 0072).
 * Knobs: BENCH_AGENTS (default 10,000); BENCH_STORM_RESUME=0 makes the agents skip resumption (a comparison);
 * BENCH_HUB_PROFILE_DIR (fleet.ts) profiles the hub.
 */
import os from 'node:os';
import path from 'node:path';
import { cpuSecondsOf } from './lib/proc-stats.js';
import { freePort, rssOf } from './lib/processes.js';
import { writeResult } from './lib/report.js';
import {
  cleanup,
  percentile,
  prepareFleet,
  startFleetProcesses,
  startHubProcess,
  timedGet,
  waitForAgents,
} from './lib/fleet.js';
import { readAttempts, splitStorm, spread } from './lib/storm-attempts.js';

/** Polls the hub's status until `count` agents are back: the time, and each poll's latency (the API's answer). */
async function watchStorm(
  origin: string,
  key: string,
  ca: string,
  count: number,
  timeoutMs: number,
): Promise<{ backMs: number | null; apiMs: number[]; apiErrors: number }> {
  const started = performance.now();
  const apiMs: number[] = [];
  let apiErrors = 0;
  while (performance.now() - started < timeoutMs) {
    const res = await timedGet(origin, '/api/v2/hub/status', key, ca).catch(() => null);
    if (!res || res.status !== 200) apiErrors += 1;
    else {
      apiMs.push(res.ms);
      const n = (JSON.parse(res.body) as { data: { agents_connected: number } }).data.agents_connected;
      if (n >= count) return { backMs: performance.now() - started, apiMs, apiErrors };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return { backMs: null, apiMs, apiErrors };
}

export async function runStormBench(): Promise<void> {
  const count = Number(process.env.BENCH_AGENTS ?? 10_000);
  const fleet = await prepareFleet(count);
  const ports = { https: await freePort(), http: await freePort() };
  let hub = await startHubProcess(fleet, ports);
  const attemptsPrefix = path.join(fleet.dataDir, 'attempts');
  const fleetProcs = await startFleetProcesses(
    fleet,
    hub.origin,
    { FLEET_RESUME_TLS: process.env.BENCH_STORM_RESUME ?? '1' },
    attemptsPrefix,
  );
  let fleetStopped = false;
  try {
    const firstMs = await waitForAgents(hub.origin, fleet.ownerKey, fleet.ca, count, 600_000);
    if (firstMs === null) throw new Error('the fleet did not connect the first time');
    await new Promise((r) => setTimeout(r, 5000));
    const steadyRss = rssOf(hub.child.process.pid ?? 0);
    const before = fleetProcs.stats();
    const failuresBefore = before.connectFailures;

    const restartStarted = performance.now();
    await hub.child.stop();
    const downAt = performance.now();
    hub = await startHubProcess(fleet, ports);
    const upAt = Date.now();
    const hubPid = hub.child.process.pid ?? 0;
    const cpuAtUp = cpuSecondsOf(hubPid);
    const loadDuring = os.loadavg()[0] ?? 0;
    const upMs = performance.now() - downAt;
    const watch = await watchStorm(hub.origin, fleet.ownerKey, fleet.ca, count, 180_000);
    const backMs = watch.backMs;
    const cpuStorm = cpuSecondsOf(hubPid) - cpuAtUp;
    const loadAfter = os.loadavg()[0] ?? 0;
    const totalMs = performance.now() - restartStarted;
    await new Promise((r) => setTimeout(r, 5000));
    const afterRss = rssOf(hubPid);
    const stats = fleetProcs.stats();
    const failures = stats.connectFailures - failuresBefore;
    const tlsReconnects = stats.tlsConnects - before.tlsConnects;
    const tlsResumed = stats.tlsResumed - before.tlsResumed;
    await fleetProcs.stop();
    fleetStopped = true;
    const split = splitStorm(
      readAttempts(fleet.identityFiles.map((_, i) => `${attemptsPrefix}-${String(i)}.json`)),
      upAt,
    );
    const meanOf = (values: readonly number[]) =>
      values.length === 0 ? 0 : values.reduce((a, b) => a + b, 0) / values.length;
    writeResult({
      benchmark: 'storm',
      command: `BENCH_AGENTS=${count} npm run bench -- storm`,
      summary: `${count} simulated agents over TLS; the hub process is stopped (SIGTERM) and started again on the same data and ports; agents reconnect with the real agent's reconnect policy (@svc/protocol, decision 0089: full jitter, 1 s base, 4 s cap while a hub lost less than two minutes ago refuses connects, 30 s for a busy hub or after that; decision 0102: a busy hub's Retry-After, which books each refused agent a turn at the hub's pace, honoured with up to 1 s of jitter) and offer their last TLS session, as the real agent does (decision 0072). Baseline: the hub's steady-state RSS with all agents connected before the restart.`,
      figures: [
        {
          name: 'all agents back after the hub answered again',
          value: backMs === null ? 'not within 180 s' : `${(backMs / 1000).toFixed(1)} s`,
          target: '≤ 15 s',
          met: backMs !== null && backMs <= 15_000,
        },
        {
          name: 'reconnects that resumed their TLS session',
          value: `${tlsResumed} of ${tlsReconnects} (${tlsReconnects > 0 ? ((100 * tlsResumed) / tlsReconnects).toFixed(1) : '0'} %)`,
          target: 'all',
          met: tlsReconnects > 0 && tlsResumed === tlsReconnects,
        },
        {
          name: "agents' wait in their backoff after the hub answered (p50 / p90 / max)",
          value: spread(split.waitInBackoff),
        },
        {
          name: 'hub time of the attempt that got in, connect to welcome (p50 / p90 / max)',
          value: spread(split.hubTime),
        },
        {
          name: 'agents back after the hub answered (p50 / p90 / max)',
          value: `${spread(split.backAfter)} (${split.back} agents)`,
        },
        {
          name: 'share of the mean time back spent waiting in the backoff',
          value: `${((100 * meanOf(split.waitInBackoff)) / Math.max(1, meanOf(split.backAfter))).toFixed(0)} %`,
        },
        {
          name: 'hub CPU per reconnect (from the hub up to all back, /proc)',
          value: `${((1000 * cpuStorm) / Math.max(1, split.back)).toFixed(2)} ms (${cpuStorm.toFixed(1)} s for ${split.back})`,
        },
        {
          name: 'agents welcomed, peak per second',
          value: String(split.peakPerSecond),
        },
        {
          name: 'attempts after the hub answered that failed',
          value: String(split.failedAfterUp),
        },
        {
          name: 'API during the storm: GET /api/v2/hub/status p50 / max, errors',
          value: `${percentile(watch.apiMs, 50).toFixed(0)} ms / ${percentile(watch.apiMs, 100).toFixed(0)} ms, ${watch.apiErrors}`,
          target: 'answers',
          met: watch.apiErrors === 0,
        },
        {
          name: 'machine load average (1 min) when the hub came up / when all were back',
          value: `${loadDuring.toFixed(1)} / ${loadAfter.toFixed(1)} on ${os.cpus().length} cores`,
        },
        {
          name: 'from stop to all back',
          value: `${(totalMs / 1000).toFixed(1)} s (hub start ${(upMs / 1000).toFixed(1)} s)`,
        },
        {
          name: 'connect attempts refused or failed during the storm',
          value: `${failures} (${(failures / count).toFixed(2)} per agent)`,
          target: 'no error spike',
        },
        {
          name: 'hub RSS after the storm',
          value: `${(afterRss / 2 ** 20).toFixed(0)} MiB`,
          target: 'bounded',
        },
        { name: 'hub RSS steady before (baseline)', value: `${(steadyRss / 2 ** 20).toFixed(0)} MiB` },
        {
          name: 'ratio after / before',
          value: (afterRss / steadyRss).toFixed(2),
          met: afterRss / steadyRss <= 1.5,
        },
      ],
      notes: [
        'Failed attempts during the storm are mostly connection refusals while the hub is down; each agent backs off, so they are spread rather than spiking.',
        'Resumed: the hub keeps its session ticket keys across the restart (decision 0072), so a ticket from before it is accepted.',
        "The agents follow @svc/protocol's reconnect policy, the one the real agent runs (decisions 0089, 0102): full jitter up to min(4 s, 2^k s) while a hub lost less than two minutes ago refuses connects; a 503 with Retry-After (the turn the hub booked for that agent at its measured pace) waits that long plus up to 1 s; up to min(30 s, 2^k s) for a hub that answers busy without it (timeouts) or after those two minutes. The backoff share is how long agents sat out after the hub answered; the hub share is their successful attempt, TLS to welcome, which includes waiting their turn in the hub's admission queue.",
        ...(process.env.BENCH_STORM_RESUME === '0'
          ? [
              'This run: BENCH_STORM_RESUME=0, the agents offered no ticket (full handshakes, as before decision 0072).',
            ]
          : []),
      ],
    });
  } finally {
    if (!fleetStopped) await fleetProcs.stop();
    await hub.child.stop();
    cleanup(fleet);
  }
}
