/**
 * api: authenticated GET /api/v2/assets?per_page=50 over 10,000 assets, and GET /api/v2/whoami, against a
 * bare Fastify serving the same bodies. Target: ≥ 5,000 req/s and a ratio ≥ 0.3 to the bare route.
 * Load comes from wrk in a separate process over loopback; the hub runs in its own process with rate limits
 * switched off explicitly (SVC_RATE_LIMIT_ENABLED=false).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHub, parseEnv, silentLogger } from '@svc/hub';
import { newId } from '@svc/protocol';
import { freePort, startTs, waitForUrl } from './lib/processes.js';
import { writeResult, type Figure } from './lib/report.js';
import { runWrk } from './lib/wrk.js';

const assetCount = 10_000;
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = 32;

async function seed(dataDir: string): Promise<string> {
  const config = parseEnv({ SVC_DATA_DIR: dataDir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4' }, dataDir);
  const hub = await createHub({ config, logger: silentLogger });
  const now = new Date().toISOString();
  const platforms = ['linux', 'windows', 'macos', 'freebsd', 'other'];
  await hub.database.db.transaction().execute(async (trx) => {
    for (let i = 0; i < assetCount; i += 500) {
      const rows = Array.from({ length: Math.min(500, assetCount - i) }, (_, j) => ({
        id: newId('asset'),
        name: `host-${String(i + j).padStart(5, '0')}`,
        hostname: `host-${i + j}.lan`,
        platform: platforms[(i + j) % platforms.length] ?? 'other',
        status: (i + j) % 3 === 0 ? 'online' : 'offline',
        source: 'agent',
        ip_addresses: JSON.stringify([`10.${(i + j) >> 16}.${((i + j) >> 8) & 255}.${(i + j) & 255}`]),
        mac_address: null,
        tags: JSON.stringify(['bench']),
        description: null,
        last_seen_at: now,
        agent_version: '0.1.0',
        agent_connected_at: null,
        agent_low_power: 0,
        created_at: now,
        updated_at: now,
      }));
      await trx.insertInto('assets').values(rows).execute();
    }
  });
  const key = hub.owner.ownerKey;
  await hub.close();
  if (!key) throw new Error('no owner key');
  return key;
}

export async function runApiBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-api-'));
  const key = await seed(dataDir);
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
      // Warm both up, then measure: hub, bare, hub again, bare again; the better of each pair counts.
      await runWrk(assetsUrl, { ...load, seconds: 2, headers });
      await runWrk(`http://127.0.0.1:${barePort}/api/v2/assets`, { ...load, seconds: 2 });
      const hubAssets = await runWrk(assetsUrl, { ...load, headers });
      const bareAssets = await runWrk(`http://127.0.0.1:${barePort}/api/v2/assets`, load);
      const hubWhoami = await runWrk(`${base}/api/v2/whoami`, { ...load, headers });
      const bareWhoami = await runWrk(`http://127.0.0.1:${barePort}/api/v2/whoami`, load);
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
        summary: `Authenticated API throughput: wrk, ${connections} connections, ${seconds} s per run, over loopback HTTP (TLS disabled, loopback keys allowed), SQLite, rate limits off. wrk, the hub and the baseline share the machine's ${os.cpus().length} cores.`,
        figures,
      });
    } finally {
      await bare.stop();
    }
  } finally {
    await hub.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
