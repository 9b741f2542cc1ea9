/**
 * agents: N simulated agents connected over TLS to one hub process at default intervals, held for a while.
 * Figures: hub RSS, p99 of GET /api/v2/assets?per_page=50 while they are connected, and the same p99 and RSS
 * before any agent connected (the baseline of the same run). Targets (issue 5): 20,000 agents held 5 minutes,
 * RSS ≤ 1 GiB, p99 ≤ 50 ms. The hub process may hold at most 20,000 open files here (a hard limit of the
 * sandbox that cannot be raised), so the default N leaves room for the hub's own files.
 * Knobs: BENCH_AGENTS (default 19,900), BENCH_HOLD_SECONDS (default 300).
 */
import { hubGauge } from './lib/hub-gauge.js';
import { rssOf } from './lib/processes.js';
import { writeResult } from './lib/report.js';
import {
  cleanup,
  connectedAgents,
  percentile,
  prepareFleet,
  startFleetProcesses,
  startHubProcess,
  timedGet,
  waitForAgents,
} from './lib/fleet.js';

async function probeLatency(
  origin: string,
  key: string,
  ca: string,
  seconds: number,
  sampleRss: () => void,
): Promise<number[]> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let lastRss = 0;
  while (performance.now() < deadline) {
    const res = await timedGet(origin, '/api/v2/assets?per_page=50', key, ca);
    if (res.status !== 200) throw new Error(`GET /assets answered ${res.status}`);
    latencies.push(res.ms);
    if (performance.now() - lastRss > 1000) {
      sampleRss();
      lastRss = performance.now();
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return latencies;
}

/** The hub's own process figures from its /metrics (prom-client's defaults), in MiB, by name. */
async function hubMemory(origin: string, key: string, ca: string): Promise<Record<string, number>> {
  const res = await timedGet(origin, '/metrics', key, ca);
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${res.body.slice(0, 200)}`);
  const mib: Record<string, number> = {};
  for (const name of [
    'process_resident_memory_bytes',
    'nodejs_heap_size_used_bytes',
    'nodejs_heap_size_total_bytes',
    'nodejs_external_memory_bytes',
  ]) {
    mib[name] = hubGauge(res.body, name) / 2 ** 20;
  }
  return mib;
}

export async function runAgentsBench(): Promise<void> {
  const count = Number(process.env.BENCH_AGENTS ?? 19_900);
  const holdSeconds = Number(process.env.BENCH_HOLD_SECONDS ?? 300);
  const fleet = await prepareFleet(count);
  const hub = await startHubProcess(fleet);
  const pid = hub.child.process.pid ?? 0;
  let fleetProcs: Awaited<ReturnType<typeof startFleetProcesses>> | null = null;
  try {
    let baselineRss = 0;
    const baseline = await probeLatency(hub.origin, fleet.ownerKey, fleet.ca, 15, () => {
      baselineRss = Math.max(baselineRss, rssOf(pid));
    });
    const connectStarted = performance.now();
    fleetProcs = await startFleetProcesses(fleet, hub.origin);
    const connectMs = await waitForAgents(hub.origin, fleet.ownerKey, fleet.ca, count, 600_000);
    if (connectMs === null)
      throw new Error(
        `only ${await connectedAgents(hub.origin, fleet.ownerKey, fleet.ca)} of ${count} agents connected in 10 minutes`,
      );
    const allConnectedAfter = performance.now() - connectStarted;
    let peakRss = 0;
    const holdLatencies = await probeLatency(hub.origin, fleet.ownerKey, fleet.ca, holdSeconds, () => {
      const rss = rssOf(pid);
      peakRss = Math.max(peakRss, rss);
    });
    // Steadiness: the hub still holds every agent at the end of the hold.
    const endConnected = await connectedAgents(hub.origin, fleet.ownerKey, fleet.ca);
    // Where the held agents' memory is: V8's heap (the hub's objects) or outside it (TLS, sockets, buffers).
    const memory = await hubMemory(hub.origin, fleet.ownerKey, fleet.ca);
    const mib = (name: string) => (memory[name] ?? Number.NaN).toFixed(0);
    const stats = fleetProcs.stats();
    const p99 = percentile(holdLatencies, 99);
    const baseP99 = percentile(baseline, 99);
    writeResult({
      benchmark: 'agents',
      command: `BENCH_AGENTS=${count} BENCH_HOLD_SECONDS=${holdSeconds} npm run bench -- agents`,
      summary: `${count} simulated agents (fleet-child processes of ≤ 5,000) over TLS (built-in P-256 CA) to one hub process on SQLite, heartbeats every 30 s and metrics every 60 s (the hub's welcome intervals), held ${holdSeconds} s while GET /api/v2/assets?per_page=50 is probed sequentially every 50 ms. Baseline: the same probe on the same hub before any agent connected.`,
      figures: [
        {
          name: 'agents connected (held to the end)',
          value: `${endConnected} of ${count}`,
          target: '20,000 held 5 min',
          met: endConnected >= count && count >= 20_000 && holdSeconds >= 300,
        },
        { name: 'time until all connected', value: `${(allConnectedAfter / 1000).toFixed(1)} s` },
        {
          name: 'hub RSS, peak while held',
          value: `${(peakRss / 2 ** 20).toFixed(0)} MiB`,
          target: '≤ 1 GiB',
          met: peakRss <= 2 ** 30,
        },
        { name: 'hub RSS before agents (baseline)', value: `${(baselineRss / 2 ** 20).toFixed(0)} MiB` },
        { name: 'RSS per agent', value: `${((peakRss - baselineRss) / count / 1024).toFixed(1)} KiB` },
        {
          name: 'hub at the end of the hold: RSS; V8 heap used / reserved; external to the heap',
          value:
            `${mib('process_resident_memory_bytes')} MiB; ${mib('nodejs_heap_size_used_bytes')} / ` +
            `${mib('nodejs_heap_size_total_bytes')} MiB; ${mib('nodejs_external_memory_bytes')} MiB`,
        },
        {
          name: 'GET /assets p99 while held',
          value: `${p99.toFixed(1)} ms (p50 ${percentile(holdLatencies, 50).toFixed(1)} ms, n=${holdLatencies.length})`,
          target: '≤ 50 ms',
          met: p99 <= 50,
        },
        {
          name: 'GET /assets p99 before agents (baseline)',
          value: `${baseP99.toFixed(1)} ms (p50 ${percentile(baseline, 50).toFixed(1)} ms)`,
        },
        { name: 'p99 ratio held / baseline', value: (p99 / baseP99).toFixed(2) },
        {
          name: 'simulator connect failures / reconnects',
          value: `${stats.connectFailures} / ${stats.reconnects}`,
        },
        {
          name: 'enrolment of the fleet (set-up, in-process)',
          value: `${(fleet.provisionMs / 1000).toFixed(1)} s`,
        },
      ],
      notes: [
        'The sandbox limits every process to 20,000 open files (hard limit, not raisable), so one hub process cannot hold 20,000 agent sockets plus its own files; the default is 19,900.',
        'The simulated fleet, the probe and the hub share the 2 cores; TLS handshakes of the fleet dominate the connect time.',
      ],
    });
  } finally {
    await fleetProcs?.stop();
    await hub.child.stop();
    cleanup(fleet);
  }
}
