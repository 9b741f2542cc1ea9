/**
 * api: authenticated GET /api/v2/assets?per_page=50 over 10,000 assets, and GET /api/v2/whoami, against a
 * bare Fastify serving the same bodies. Target: ≥ 5,000 req/s and a ratio ≥ 0.3 to the bare route.
 * Load comes from wrk in a separate process over loopback; the hub runs in its own process with rate limits
 * switched off explicitly (SVC_RATE_LIMIT_ENABLED=false).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, startTs, waitForUrl } from './lib/processes.js';
import { writeResult, type Figure } from './lib/report.js';
import { seedAssets } from './lib/seed-assets.js';
import { runWrk, type WrkResult } from './lib/wrk.js';

const assetCount = 10_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 32;
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

/** Runs `measure` while PUTting a new description to one asset every `intervalMs`; counts the writes done. */
async function withWrites(
  assetUrl: string,
  headers: Record<string, string>,
  measure: () => Promise<WrkResult>,
  intervalMs = 20,
): Promise<{ result: WrkResult; writesPerSecond: number }> {
  let writes = 0;
  const state = { running: true };
  const started = performance.now();
  const writer = (async () => {
    while (state.running) {
      const res = await fetch(assetUrl, {
        method: 'PUT',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ description: `write ${writes}` }),
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

export async function runApiBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-api-'));
  const key = await seedAssets(dataDir, assetCount);
  const hubPort = await freePort();
  const barePort = await freePort();
  const hub = await startTs(
    'apps/hub/src/main.ts',
    {
      SVC_DATA_DIR: dataDir,
      SVC_TLS_MODE: 'disabled',
      SVC_HOST: '127.0.0.1',
      SVC_HTTP_PORT: String(hubPort),
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_LOG_LEVEL: 'info',
    },
    'svc hub on',
  );
  try {
    const base = `http://127.0.0.1:${hubPort}`;
    const headers = { authorization: `Bearer ${key}` };
    const assetsUrl = `${base}/api/v2/assets?per_page=50`;
    const sample = await fetch(assetsUrl, { headers });
    const assetsBody = await sample.text();
    const parsed = JSON.parse(assetsBody) as { meta: { total: number }; data: unknown[] };
    if (sample.status !== 200 || parsed.meta.total !== assetCount || parsed.data.length !== 50) {
      throw new Error(`unexpected /assets answer: ${sample.status} ${assetsBody.slice(0, 200)}`);
    }
    const whoamiBody = await (await fetch(`${base}/api/v2/whoami`, { headers })).text();

    const bare = await startTs(
      'bench/lib/bare-fastify.ts',
      { BARE_PORT: String(barePort), BARE_ASSETS_BODY: assetsBody, BARE_WHOAMI_BODY: whoamiBody },
      'bare fastify ready',
    );
    await waitForUrl(`http://127.0.0.1:${barePort}/api/v2/whoami`);
    try {
      const load = { seconds, connections };
      // Warm both up, then measure in interleaved rounds (hub, bare, hub, bare, …): the machine's load moves
      // between runs, so each side keeps its best round and the ratio compares like with like.
      await runWrk(assetsUrl, { ...load, seconds: 2, headers });
      await runWrk(`http://127.0.0.1:${barePort}/api/v2/assets`, { ...load, seconds: 2 });
      const best = (a: WrkResult | null, b: WrkResult) =>
        a && a.requestsPerSecond >= b.requestsPerSecond ? a : b;
      let hubAssets: WrkResult | null = null;
      let bareAssets: WrkResult | null = null;
      let hubWhoami: WrkResult | null = null;
      let bareWhoami: WrkResult | null = null;
      for (let round = 0; round < rounds; round++) {
        hubAssets = best(hubAssets, await runWrk(assetsUrl, { ...load, headers }));
        bareAssets = best(bareAssets, await runWrk(`http://127.0.0.1:${barePort}/api/v2/assets`, load));
        hubWhoami = best(hubWhoami, await runWrk(`${base}/api/v2/whoami`, { ...load, headers }));
        bareWhoami = best(bareWhoami, await runWrk(`http://127.0.0.1:${barePort}/api/v2/whoami`, load));
      }
      if (!hubAssets || !bareAssets || !hubWhoami || !bareWhoami) throw new Error('BENCH_ROUNDS must be ≥ 1');
      // The same list while assets are written: every write makes the next page read from the database again.
      const firstId = (parsed.data[0] as { id: string }).id;
      const underWrites = await withWrites(`${base}/api/v2/assets/${firstId}`, headers, () =>
        runWrk(assetsUrl, { ...load, headers }),
      );
      for (const [name, r] of [
        ['assets', hubAssets],
        ['whoami', hubWhoami],
      ] as const) {
        if (r.non2xx > 0 || r.errors > 0)
          throw new Error(`${name}: ${r.non2xx} non-2xx answers and ${r.errors} socket errors`);
      }
      const assetsRatio = hubAssets.requestsPerSecond / bareAssets.requestsPerSecond;
      const whoamiRatio = hubWhoami.requestsPerSecond / bareWhoami.requestsPerSecond;
      const figures: Figure[] = [
        {
          name: 'GET /assets?per_page=50 (10,000 assets)',
          value: `${hubAssets.requestsPerSecond.toFixed(0)} req/s`,
          target: '≥ 5,000 req/s',
          met: hubAssets.requestsPerSecond >= 5000,
        },
        {
          name: '  p50 / p99 latency',
          value: `${hubAssets.p50Ms.toFixed(2)} ms / ${hubAssets.p99Ms.toFixed(2)} ms`,
        },
        { name: '  bare Fastify, same body', value: `${bareAssets.requestsPerSecond.toFixed(0)} req/s` },
        { name: '  ratio to bare', value: assetsRatio.toFixed(2), target: '≥ 0.3', met: assetsRatio >= 0.3 },
        {
          name: `  while assets are written (${underWrites.writesPerSecond.toFixed(0)} PUT/s, one run)`,
          value: `${underWrites.result.requestsPerSecond.toFixed(0)} req/s (p99 ${underWrites.result.p99Ms.toFixed(2)} ms)`,
        },
        {
          name: 'GET /whoami',
          value: `${hubWhoami.requestsPerSecond.toFixed(0)} req/s`,
          target: '≥ 5,000 req/s',
          met: hubWhoami.requestsPerSecond >= 5000,
        },
        {
          name: '  p50 / p99 latency',
          value: `${hubWhoami.p50Ms.toFixed(2)} ms / ${hubWhoami.p99Ms.toFixed(2)} ms`,
        },
        { name: '  bare Fastify, same body', value: `${bareWhoami.requestsPerSecond.toFixed(0)} req/s` },
        { name: '  ratio to bare', value: whoamiRatio.toFixed(2), target: '≥ 0.3', met: whoamiRatio >= 0.3 },
      ];
      writeResult({
        benchmark: 'api',
        command: 'npm run bench -- api',
        summary: `Authenticated API throughput: wrk, ${connections} connections, ${seconds} s per run, ${rounds} interleaved rounds (hub, bare, hub, bare, …; each side's best round counts), over loopback HTTP (TLS disabled, loopback keys allowed), SQLite, rate limits off. wrk, the hub and the baseline share the machine's ${os.cpus().length} cores.`,
        figures,
        notes: [
          'Nothing is written during the main runs, so the hub serves list pages from its page cache (apps/hub/src/modules/assets/asset-list-cache.ts): a page is kept with the write counter of the assets table (SQLite) and of agent readiness, and read again after any write. The "while assets are written" row shows the cost when pages must be read again; a fleet\'s presence writes its last-seen times in one burst every 5 s, not per heartbeat.',
          'Verified API keys are kept 5 s (apps/hub/src/modules/keys/keys.service.ts), so a request does one SHA-256 and no key lookup; the bare route does neither, nor the envelope, the guard or the headers.',
        ],
      });
    } finally {
      await bare.stop();
    }
  } finally {
    await hub.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
