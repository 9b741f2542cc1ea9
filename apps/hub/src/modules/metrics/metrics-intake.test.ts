/**
 * The metrics intake as an attacker meets it: a hostile agent on loopback floods the real hub's channel, and
 * an operator deletes an asset with a large history, then restarts the hub. On SQLite, and on PostgreSQL when
 * SVC_TEST_DATABASE_URL is set.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChannelPath, type ConnectedAgent, type HubStatus } from '@svc/protocol';
import { createHub, parseEnv, silentLogger, systemOwnerContext, type Hub } from '@svc/hub';
import { createPgSchema, databaseTargets, FakeAgent, provisionAgents, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { metricsBudgetFor } from './metrics-budget.js';
import { metricSample } from '../../testing/metric-sample.js';

async function samplesOf(hub: Hub, assetId: string): Promise<number> {
  const row = await hub.database.db
    .selectFrom('metric_samples')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('asset_id', '=', assetId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Polls `read` until `done` holds, at most 600 times 25 ms. */
async function until<T>(read: () => Promise<T> | T, done: (value: T) => boolean): Promise<T> {
  let value = await read();
  for (let i = 0; i < 600 && !done(value); i++) {
    await new Promise((r) => setTimeout(r, 25));
    value = await read();
  }
  return value;
}

const frames = 20;
const perFrame = 500;
const { burstSamples } = metricsBudgetFor(60);

describe.each(databaseTargets())('metrics intake under attack ($name)', ({ options }) => {
  const use = useTestHub({ ...options, listen: true }, 'per-test');

  async function agentsById(t: TestHub): Promise<Map<string, ConnectedAgent>> {
    const res = await t.request('GET', '/api/v2/hub/agents?per_page=100');
    expect(res.status).toBe(200);
    return new Map((res.json.data as ConnectedAgent[]).map((a) => [a.asset_id, a]));
  }

  it('an agent flooding samples, or repeating one timestamp, stores at most its budget; the drops are shown', async () => {
    const t = use();
    const [flooder, repeater] = await provisionAgents(t.hub, 2, 'hostile');
    if (!flooder || !repeater) throw new Error('agents not provisioned');
    const url = `ws://127.0.0.1:${String(t.servers?.httpPort)}${agentChannelPath}`;
    const agents = [flooder, repeater].map((a) => new FakeAgent({ url, credential: a.credential }));
    for (const agent of agents) await agent.start();
    const now = t.clock.now().getTime();

    // 10,000 samples each, as fast as the channel takes them: distinct timestamps a millisecond apart, and one
    // timestamp over and over.
    for (let f = 0; f < frames; f++) {
      agents[0]?.metrics(
        Array.from({ length: perFrame }, (_, i) => metricSample(now - 60_000 + f * perFrame + i)),
      );
      agents[1]?.metrics(Array.from({ length: perFrame }, () => metricSample(now - 1_000)));
    }
    const sent = frames * perFrame;
    const seen = (a: ConnectedAgent | undefined) =>
      a ? a.metrics.accepted + a.metrics.over_budget + a.metrics.duplicate + a.metrics.out_of_window : 0;
    const listed = await until(
      () => agentsById(t),
      (m) => seen(m.get(flooder.assetId)) === sent && seen(m.get(repeater.assetId)) === sent,
    );
    await t.hub.metrics.store.flush();

    expect(await samplesOf(t.hub, flooder.assetId)).toBe(burstSamples);
    expect(await samplesOf(t.hub, repeater.assetId)).toBe(1);
    expect(listed.get(flooder.assetId)?.metrics).toEqual({
      accepted: burstSamples,
      over_budget: sent - burstSamples,
      duplicate: 0,
      out_of_window: 0,
    });
    expect(listed.get(repeater.assetId)?.metrics).toEqual({
      accepted: 1,
      over_budget: 0,
      duplicate: sent - 1,
      out_of_window: 0,
    });
    const status = await t.request('GET', '/api/v2/hub/status');
    expect((status.json.data as HubStatus).metrics).toEqual({
      samples_dropped: sent - burstSamples + sent - 1,
      samples_lost: 0,
      purges_pending: 0,
    });
    // Both connections stay up: dropping samples is not a reason to cut an agent off.
    expect(t.hub.gateway.isConnected(flooder.assetId)).toBe(true);
    for (const agent of agents) agent.close();
  });

  it('DELETE of an asset with a large history answers, its metrics are gone from reads, then its samples', async () => {
    const t = use();
    const doomed = await t.createAsset();
    const kept = await t.createAsset();
    const now = t.clock.now().getTime();
    const many = Array.from({ length: 20_000 }, (_, i) => metricSample(now - 1_000 - (i % 2) * i));
    for (let i = 0; i < many.length; i += 500) t.hub.metrics.store.add(doomed.id, many.slice(i, i + 500));
    t.hub.metrics.store.add(kept.id, [metricSample(now - 1_000)]);
    await t.hub.metrics.store.flush();

    const res = await t.request('DELETE', `/api/v2/assets/${doomed.id}`);
    expect(res.status).toBe(200);
    expect((await t.request('GET', `/api/v2/assets/${doomed.id}/metrics`)).status).toBe(404);
    const overview = await t.request('GET', '/api/v2/metrics/overview');
    expect(overview.json.data).toMatchObject({ assets_total: 1, assets_reporting: 1 });

    await t.hub.metrics.purger.idle();
    expect(await samplesOf(t.hub, doomed.id)).toBe(0);
    expect(await samplesOf(t.hub, kept.id)).toBe(1);
    expect(t.hub.metrics.purger.deleted()).toBe(20_000);
  });
});

describe.each(databaseTargets())('metrics purge across a restart ($name)', ({ options }) => {
  let dataDir: string;
  let pgSchema: Awaited<ReturnType<typeof createPgSchema>> | null = null;
  const opened: Hub[] = [];

  beforeEach(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-purge-'));
    if (options.postgresUrl) pgSchema = await createPgSchema(options.postgresUrl);
  });

  afterEach(async () => {
    for (const hub of opened.splice(0)) await hub.close();
    await pgSchema?.drop();
    pgSchema = null;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(): Promise<Hub> {
    const config = parseEnv(
      {
        SVC_DATA_DIR: dataDir,
        SVC_TLS_MODE: 'disabled',
        SVC_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
        ...(options.postgresUrl ? { SVC_DATABASE_URL: options.postgresUrl } : {}),
      },
      dataDir,
    );
    const hub = await createHub({
      config,
      logger: silentLogger,
      ...(pgSchema ? { database: { pgSchema: pgSchema.schema } } : {}),
    });
    opened.push(hub);
    return hub;
  }

  it('a hub stopped before the history of a deleted asset was purged purges it at its next start', async () => {
    const first = await open();
    const ctx = systemOwnerContext();
    const doomed = await first.services.assets.create(ctx, { name: 'doomed' });
    const kept = await first.services.assets.create(ctx, { name: 'kept' });
    const now = Date.now();
    const many = Array.from({ length: 6_000 }, (_, i) => metricSample(now - 1_000 - i));
    for (let i = 0; i < many.length; i += 500) first.metrics.store.add(doomed.id, many.slice(i, i + 500));
    first.metrics.store.add(kept.id, [metricSample(now - 1_000)]);
    await first.metrics.store.flush();
    // What a kill right after the delete committed leaves: the asset gone, every sample still there.
    await first.database.db.deleteFrom('assets').where('id', '=', doomed.id).execute();
    await first.close();
    opened.splice(opened.indexOf(first), 1);

    const second = await open();
    await second.metrics.purger.idle();
    expect(await samplesOf(second, doomed.id)).toBe(0);
    expect(await samplesOf(second, kept.id)).toBe(1);
  });
});
