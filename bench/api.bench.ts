/**
 * api: authenticated GET /api/v2/assets?per_page=50 over 10,000 assets, and GET /api/v2/whoami, against a
 * bare Fastify serving the same bodies, over plain HTTP (TLS disabled) and over HTTPS (the hub's built-in CA,
 * as it is deployed; the bare Fastify then serves HTTPS too, with a certificate made the same way and the
 * hub's TLS policy). Targets: ≥ 5,000 req/s; ratios to the bare route ≥ 0.6 (list) and ≥ 0.5 (whoami) over
 * HTTPS; the list while assets are written ≥ 0.8 × unwritten with p99 ≤ 20 ms.
 * Load comes from wrk in a separate process over loopback; the hub runs in its own process with rate limits
 * switched off explicitly (SVC_RATE_LIMIT_ENABLED=false).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { jsonClient, type JsonClient } from './lib/https-json.js';
import { cpuSecondsOf } from './lib/proc-stats.js';
import { freePort, startTs, type Child } from './lib/processes.js';
import { writeResult, type Figure } from './lib/report.js';
import { seedAssets } from './lib/seed-assets.js';
import { runWrk, type WrkResult } from './lib/wrk.js';

const assetCount = 10_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 32;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
/** BENCH_MODES=http or https runs one of them only (for trials). */
const modes = (process.env.BENCH_MODES ?? 'http,https').split(',') as Mode[];
/** BENCH_HUB_PROF=<dir> starts the hub with --cpu-prof into that folder (for profiling, not for figures). */
const profDir = process.env.BENCH_HUB_PROF;

type Mode = 'http' | 'https';

/** Runs `measure` while PUTting a new description to one asset every `intervalMs`; counts the writes done. */
async function withWrites(
  client: JsonClient,
  assetUrl: string,
  headers: Record<string, string>,
  measure: () => Promise<Run>,
  intervalMs = 20,
): Promise<{ result: Run; writesPerSecond: number }> {
  let writes = 0;
  const state = { running: true };
  const started = performance.now();
  const writer = (async () => {
    while (state.running) {
      const res = await client.request('PUT', assetUrl, {
        headers,
        body: { description: `write ${writes}` },
      });
      if (res.status !== 200) throw new Error(`PUT answered ${res.status}`);
      writes += 1;
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  })();
  try {
    const result = await measure();
    return { result, writesPerSecond: (writes * 1000) / (performance.now() - started) };
  } finally {
    state.running = false;
    await writer;
  }
}

/** A wrk run with the CPU time the serving process spent on it per request (µs), which the machine's other load moves less than req/s. */
type Run = WrkResult & { cpuUs: number };

async function timed(server: Child, run: () => Promise<WrkResult>): Promise<Run> {
  const pid = server.process.pid ?? 0;
  const before = cpuSecondsOf(pid);
  const result = await run();
  return { ...result, cpuUs: ((cpuSecondsOf(pid) - before) * 1e6) / Math.max(1, result.requests) };
}

interface ModeResult {
  hubAssets: Run;
  bareAssets: Run;
  hubWhoami: Run;
  bareWhoami: Run;
  written: Run;
  /** The unwritten run just before the written one, so the two compare under the same load. */
  unwritten: Run;
  writesPerSecond: number;
}

const best = (a: Run | null, b: Run) => (a && a.requestsPerSecond >= b.requestsPerSecond ? a : b);

function checkClean<R extends WrkResult>(name: string, r: R): R {
  if (r.non2xx > 0 || r.errors > 0)
    throw new Error(`${name}: ${r.non2xx} non-2xx answers and ${r.errors} socket errors`);
  return r;
}

async function measureMode(
  mode: Mode,
  dataDir: string,
  key: string,
  bodies: { assets: string; whoami: string } | null,
): Promise<{ result: ModeResult; bodies: { assets: string; whoami: string } }> {
  const hubPort = await freePort();
  const barePort = await freePort();
  const tlsEnv: Record<string, string> =
    mode === 'https'
      ? { SVC_TLS_MODE: 'auto', SVC_HTTPS_PORT: String(hubPort), SVC_HTTP_PORT: String(await freePort()) }
      : { SVC_TLS_MODE: 'disabled', SVC_HTTP_PORT: String(hubPort) };
  const hub = await startTs(
    'apps/hub/src/main.ts',
    {
      SVC_DATA_DIR: dataDir,
      SVC_HOST: '127.0.0.1',
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_LOCAL_AGENT: 'false',
      SVC_LOG_LEVEL: 'info',
      ...tlsEnv,
    },
    'svc hub on',
    120_000,
    profDir ? ['--cpu-prof', `--cpu-prof-dir=${profDir}`] : [],
    // Writing a CPU profile on a loaded machine takes longer than the default wait before SIGKILL.
    profDir ? 120_000 : undefined,
  );
  const client = jsonClient(
    mode === 'https' ? { ca: fs.readFileSync(path.join(dataDir, 'tls', 'ca.crt'), 'utf8') } : {},
  );
  try {
    const base = `${mode}://127.0.0.1:${hubPort}`;
    const headers = { authorization: `Bearer ${key}` };
    const assetsUrl = `${base}/api/v2/assets?per_page=50`;
    const sample = await client.request('GET', assetsUrl, { headers });
    const parsed = JSON.parse(sample.text) as { meta: { total: number }; data: { id: string }[] };
    if (sample.status !== 200 || parsed.meta.total !== assetCount || parsed.data.length !== 50) {
      throw new Error(`unexpected /assets answer: ${sample.status} ${sample.text.slice(0, 200)}`);
    }
    const whoami = await client.request('GET', `${base}/api/v2/whoami`, { headers });
    const served = bodies ?? { assets: sample.text, whoami: whoami.text };
    const bare = await startTs(
      'bench/lib/bare-fastify.ts',
      {
        BARE_PORT: String(barePort),
        BARE_ASSETS_BODY: served.assets,
        BARE_WHOAMI_BODY: served.whoami,
        BARE_TLS: mode === 'https' ? '1' : '0',
      },
      'bare fastify ready',
    );
    try {
      const bareBase = `${mode}://127.0.0.1:${barePort}`;
      // An answer slower than wrk's default 2 s would count as a socket error and end the run on a loaded
      // machine; with 10 s it is counted in the latencies, where it belongs.
      const load = { seconds, connections, timeoutSeconds: 10 };
      // Warm both up, then measure in interleaved rounds (hub, bare, hub, bare, …): the machine's load moves
      // between runs, so each side keeps its best round and the ratio compares like with like.
      await runWrk(assetsUrl, { ...load, seconds: 2, headers });
      await runWrk(`${bareBase}/api/v2/assets`, { ...load, seconds: 2 });
      let hubAssets: Run | null = null;
      let bareAssets: Run | null = null;
      let hubWhoami: Run | null = null;
      let bareWhoami: Run | null = null;
      for (let round = 0; round < rounds; round++) {
        const hubRun = (url: string) => timed(hub, () => runWrk(url, { ...load, headers }));
        const bareRun = (url: string) => timed(bare, () => runWrk(url, load));
        hubAssets = best(hubAssets, checkClean('assets', await hubRun(assetsUrl)));
        bareAssets = best(bareAssets, await bareRun(`${bareBase}/api/v2/assets`));
        hubWhoami = best(hubWhoami, checkClean('whoami', await hubRun(`${base}/api/v2/whoami`)));
        bareWhoami = best(bareWhoami, await bareRun(`${bareBase}/api/v2/whoami`));
      }
      if (!hubAssets || !bareAssets || !hubWhoami || !bareWhoami) throw new Error('BENCH_ROUNDS must be ≥ 1');
      // The same list unwritten, then while assets are written, back to back: the ratio of the two is what
      // writes cost, under the same load on the machine.
      const firstId = parsed.data[0]?.id ?? '';
      const unwritten = checkClean('assets', await timed(hub, () => runWrk(assetsUrl, { ...load, headers })));
      const underWrites = await withWrites(client, `${base}/api/v2/assets/${firstId}`, headers, () =>
        timed(hub, () => runWrk(assetsUrl, { ...load, headers })),
      );
      checkClean('assets while written', underWrites.result);
      return {
        bodies: served,
        result: {
          hubAssets,
          bareAssets,
          hubWhoami,
          bareWhoami,
          unwritten,
          written: underWrites.result,
          writesPerSecond: underWrites.writesPerSecond,
        },
      };
    } finally {
      await bare.stop();
    }
  } finally {
    client.close();
    await hub.stop();
  }
}

const cpuPair = (hub: Run, bare: Run) =>
  `${hub.cpuUs.toFixed(0)} µs / ${bare.cpuUs.toFixed(0)} µs (${(hub.cpuUs / bare.cpuUs).toFixed(2)}×)`;

function figuresOf(mode: Mode, r: ModeResult): Figure[] {
  const label = mode === 'https' ? 'HTTPS' : 'HTTP';
  const assetsRatio = r.hubAssets.requestsPerSecond / r.bareAssets.requestsPerSecond;
  const whoamiRatio = r.hubWhoami.requestsPerSecond / r.bareWhoami.requestsPerSecond;
  const writtenRatio = r.written.requestsPerSecond / r.unwritten.requestsPerSecond;
  const https = mode === 'https';
  return [
    {
      name: `${label}: GET /assets?per_page=50 (10,000 assets)`,
      value: `${r.hubAssets.requestsPerSecond.toFixed(0)} req/s`,
      target: '≥ 5,000 req/s',
      met: r.hubAssets.requestsPerSecond >= 5000,
    },
    {
      name: '  p50 / p99 latency',
      value: `${r.hubAssets.p50Ms.toFixed(2)} ms / ${r.hubAssets.p99Ms.toFixed(2)} ms`,
    },
    { name: '  bare Fastify, same body', value: `${r.bareAssets.requestsPerSecond.toFixed(0)} req/s` },
    { name: '  CPU per request, hub / bare', value: cpuPair(r.hubAssets, r.bareAssets) },
    {
      name: '  ratio to bare',
      value: assetsRatio.toFixed(2),
      target: https ? '≥ 0.6' : '≥ 0.3',
      met: assetsRatio >= (https ? 0.6 : 0.3),
    },
    {
      name: `  while assets are written (${r.writesPerSecond.toFixed(0)} PUT/s, one run)`,
      value: `${r.written.requestsPerSecond.toFixed(0)} req/s (p99 ${r.written.p99Ms.toFixed(2)} ms)`,
      target: 'p99 ≤ 20 ms',
      met: r.written.p99Ms <= 20,
    },
    {
      name: '  written / unwritten (the run just before)',
      value: `${writtenRatio.toFixed(2)} (${r.unwritten.requestsPerSecond.toFixed(0)} req/s, p99 ${r.unwritten.p99Ms.toFixed(2)} ms; hub CPU per request ${r.written.cpuUs.toFixed(0)} µs written, ${r.unwritten.cpuUs.toFixed(0)} µs not)`,
      target: '≥ 0.8',
      met: writtenRatio >= 0.8,
    },
    {
      name: `${label}: GET /whoami`,
      value: `${r.hubWhoami.requestsPerSecond.toFixed(0)} req/s`,
      target: '≥ 5,000 req/s',
      met: r.hubWhoami.requestsPerSecond >= 5000,
    },
    {
      name: '  p50 / p99 latency',
      value: `${r.hubWhoami.p50Ms.toFixed(2)} ms / ${r.hubWhoami.p99Ms.toFixed(2)} ms`,
    },
    { name: '  bare Fastify, same body', value: `${r.bareWhoami.requestsPerSecond.toFixed(0)} req/s` },
    { name: '  CPU per request, hub / bare', value: cpuPair(r.hubWhoami, r.bareWhoami) },
    {
      name: '  ratio to bare',
      value: whoamiRatio.toFixed(2),
      target: https ? '≥ 0.5' : '≥ 0.3',
      met: whoamiRatio >= (https ? 0.5 : 0.3),
    },
  ];
}

export async function runApiBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-api-'));
  try {
    const key = await seedAssets(dataDir, assetCount);
    const figures: Figure[] = [];
    let bodies: { assets: string; whoami: string } | null = null;
    for (const mode of modes) {
      const measured = await measureMode(mode, dataDir, key, bodies);
      bodies = measured.bodies;
      figures.push(...figuresOf(mode, measured.result));
    }
    writeResult({
      benchmark: 'api',
      command: 'npm run bench -- api',
      summary: `Authenticated API throughput: wrk, ${connections} connections, ${seconds} s per run, ${rounds} interleaved rounds (hub, bare, hub, bare, …; each side's best round counts), over loopback, first plain HTTP (TLS disabled, loopback keys allowed), then HTTPS (the hub's built-in CA; the bare Fastify with a P-256 certificate made the same way and the hub's TLS policy), SQLite, rate limits off. wrk, the hub and the baseline share the machine's ${os.cpus().length} cores.`,
      figures,
      notes: [
        'Nothing is written during the main runs, so the hub serves list pages from its page cache (apps/hub/src/modules/assets/asset-list-cache.ts). The "while assets are written" row PUTs a new description to one asset every 20 ms during one run, and is compared with an unwritten run just before it. A description changes no page\'s order or membership, so the hub carries its kept pages over such a PUT (decision 0088); a rename, a tag change or a presence write still has the next callers read the page again.',
        "CPU per request: the serving process's user + system time over the run (/proc, 10 ms ticks) divided by the requests wrk completed; it moves less than req/s with the machine's other load. The hub's includes its own timers and, while written, the PUTs.",
        'Verified API keys are kept 5 s (apps/hub/src/modules/keys/keys.service.ts), so a request does one SHA-256 and no key lookup; the bare route does neither, nor the envelope, the guard or the headers.',
      ],
    });
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
