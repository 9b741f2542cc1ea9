import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { MetricSample, MetricsOverview, MetricsSeries } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { countMetricSamples } from './metrics.repository.js';
import {
  canonicalTsMs,
  createMetricsStore,
  isCanonicalTs,
  statementSizes,
  type MetricsStoreOptions,
} from './metrics.store.js';

const start = new Date('2026-11-23T12:00:00.000Z');

function sample(ts: Date | string, overrides: Partial<MetricSample> = {}): MetricSample {
  return {
    ts: typeof ts === 'string' ? ts : ts.toISOString(),
    cpu_percent: 10,
    memory_used_bytes: 2_000,
    memory_total_bytes: 8_000,
    disk_used_bytes: 50,
    disk_total_bytes: 100,
    load1: 0.5,
    net_rx_bytes: 123_456_789_012,
    net_tx_bytes: 42,
    ...overrides,
  };
}

function at(secondsAfterStart: number): Date {
  return new Date(start.getTime() + secondsAfterStart * 1000);
}

function storeFor(t: TestHub, options: Partial<MetricsStoreOptions> = {}) {
  return createMetricsStore({
    db: t.hub.database.db,
    clock: t.clock,
    flushIntervalMs: 0,
    retentionIntervalMs: 0,
    ...options,
  });
}

describe('metrics store internals', () => {
  it('takes a timestamp as it is only when re-formatting would print exactly the same text', () => {
    const twoDigits = (max: number) => fc.integer({ min: 0, max }).map((n) => String(n).padStart(2, '0'));
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9999 }),
        twoDigits(13),
        twoDigits(32),
        twoDigits(25),
        twoDigits(61),
        twoDigits(61),
        fc.integer({ min: 0, max: 999 }),
        fc.constantFrom('Z', '+00:00', '+01:00', 'z', ''),
        (year, month, day, hour, minute, second, ms, zone) => {
          const ts = `${String(year).padStart(4, '0')}-${month}-${day}T${hour}:${minute}:${second}.${String(ms).padStart(3, '0')}${zone}`;
          const parsed = Date.parse(ts);
          if (isCanonicalTs(ts)) {
            expect(canonicalTsMs(ts)).toBe(parsed);
            expect(new Date(parsed).toISOString()).toBe(ts);
          } else if (year >= 100 && !Number.isNaN(parsed)) {
            // Refused as canonical only when re-formatting would print something else.
            expect(new Date(parsed).toISOString()).not.toBe(ts);
          }
        },
      ),
      { numRuns: 2000 },
    );
    expect(isCanonicalTs('2026-11-23T12:00:00.000Z')).toBe(true);
    expect(isCanonicalTs('2028-02-29T23:59:59.999Z')).toBe(true);
    expect(isCanonicalTs('2026-01-31T00:00:00.000Z')).toBe(true);
    // Readable, but stored after re-formatting: no milliseconds, an offset, a day Date.parse rolls over.
    expect(isCanonicalTs('2026-11-23T12:00:00Z')).toBe(false);
    expect(isCanonicalTs('2026-11-23T13:00:00.000+01:00')).toBe(false);
    expect(isCanonicalTs('2026-02-30T00:00:00.000Z')).toBe(false);
    expect(isCanonicalTs('2026-11-23T24:00:00.000Z')).toBe(false);
    expect(isCanonicalTs('2100-02-29T00:00:00.000Z')).toBe(false);
    expect(isCanonicalTs('2026-04-31T00:00:00.000Z')).toBe(false);
    expect(isCanonicalTs('2026-11-23T12:00:00.0a0Z')).toBe(false);
  });

  it('cuts any number of rows into statements of a few fixed sizes', () => {
    const allowed = new Set([500, 256, 128, 64, 32, 16, 8, 4, 2, 1]);
    for (let rows = 0; rows <= 2_000; rows++) {
      const sizes = statementSizes(rows);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(rows);
      expect(sizes.every((size) => allowed.has(size))).toBe(true);
      expect(sizes.length).toBeLessThanOrEqual(Math.floor(rows / 500) + 9);
    }
  });
});

describe.each(databaseTargets())('metrics ($name)', ({ options }) => {
  const use = useOperations(options);

  it('stores samples in batches and returns a time range in ascending order, limited', async () => {
    const { t, ops } = use();
    t.clock.set(at(3600));
    const a = await t.createAsset();
    const b = await t.createAsset();
    const store = storeFor(t);
    // 1,200 samples, one a second, newest first: more than two 500-row chunks, out of order.
    const samples = Array.from({ length: 1200 }, (_, i) => sample(at(1199 - i), { cpu_percent: 1199 - i }));
    store.add(a.id, samples);
    store.add(b.id, [sample(at(10))]);
    await store.close();

    expect(store.stats()).toEqual({ buffered: 0, written: 1201, dropped: 0, rejected: 0 });
    const res = await ops.request(
      'GET',
      `/api/v2/assets/${a.id}/metrics?from=${at(100).toISOString()}&to=${at(200).toISOString()}&limit=50`,
    );
    expect(res.status).toBe(200);
    const series = res.json.data as MetricsSeries;
    expect(series.asset_id).toBe(a.id);
    expect(series.samples).toHaveLength(50);
    expect(series.samples.map((s) => s.cpu_percent)).toEqual(Array.from({ length: 50 }, (_, i) => 100 + i));
    expect(series.samples[0]).toEqual(sample(at(100), { cpu_percent: 100 }));

    const all = await ops.request(
      'GET',
      `/api/v2/assets/${a.id}/metrics?from=${at(100).toISOString()}&to=${at(200).toISOString()}`,
    );
    expect((all.json.data as MetricsSeries).samples).toHaveLength(101);
  });

  it('defaults to the last hour, and answers while the asset is offline', async () => {
    const { t, ops } = use();
    t.clock.set(at(5400));
    const asset = await t.createAsset();
    const store = storeFor(t);
    store.add(asset.id, [sample(at(0)), sample(at(1800)), sample(at(5400))]);
    await store.flush();
    t.clock.set(at(5400 + 60));

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/metrics`);

    expect(ops.gateway.isConnected(asset.id)).toBe(false);
    expect(res.status).toBe(200);
    expect((res.json.data as MetricsSeries).samples.map((s) => s.ts)).toEqual([at(5400).toISOString()]);
    await store.close();
  });

  it('refuses a range whose start is after its end, and hides assets outside allowed_assets', async () => {
    const { t, ops } = use();
    const mine = await t.createAsset();
    const other = await t.createAsset();
    const key = await t.createKey({ role: 'viewer', scopes: ['metrics:read'], allowed_assets: [mine.id] });

    const backwards = await ops.request(
      'GET',
      `/api/v2/assets/${mine.id}/metrics?from=${at(10).toISOString()}&to=${at(0).toISOString()}`,
    );
    const hidden = await ops.request('GET', `/api/v2/assets/${other.id}/metrics`, { key: key.raw_key });
    const unknown = await ops.request('GET', '/api/v2/assets/ast_00000000000000000000000000/metrics');

    expect(backwards.status).toBe(400);
    expect(hidden.status).toBe(404);
    expect(unknown.status).toBe(404);
  });

  it('refuses unreadable, out-of-window and out-of-range samples, and drops what does not fit the buffer', async () => {
    const { t } = use();
    t.clock.set(at(0));
    const asset = await t.createAsset();
    const before = await countMetricSamples(t.hub.database.db);
    const store = storeFor(t, { maxBuffered: 3, retentionDays: 7 });

    store.add(asset.id, [
      sample('not a time'),
      sample(new Date(start.getTime() - 8 * 24 * 3600 * 1000)),
      sample(at(24 * 3600)),
      sample(at(0), { memory_used_bytes: 2 ** 60 }),
      sample('2026-11-23T13:00:00+01:00'),
      sample(at(1)),
      sample(at(2)),
      sample(at(3)),
    ]);
    await store.close();
    store.add(asset.id, [sample(at(4))]);

    expect(store.stats()).toEqual({ buffered: 0, written: 3, dropped: 2, rejected: 4 });
    expect((await countMetricSamples(t.hub.database.db)) - before).toBe(3);
    const stored = await t.hub.database.db
      .selectFrom('metric_samples')
      .select('ts')
      .where('asset_id', '=', asset.id)
      .orderBy('ts')
      .execute();
    // A timestamp with an offset is stored in the canonical UTC form.
    expect(stored.map((r) => r.ts)).toEqual([at(0).toISOString(), at(1).toISOString(), at(2).toISOString()]);
  });

  it('writes on its own once a batch is full, and on the timer', async () => {
    const { t } = use();
    t.clock.set(at(0));
    const asset = await t.createAsset();
    const store = storeFor(t, { batchSize: 10, flushIntervalMs: 20 });

    store.add(
      asset.id,
      Array.from({ length: 10 }, (_, i) => sample(at(i))),
    );
    await vi.waitFor(
      () => {
        expect(store.stats().written).toBe(10);
      },
      { timeout: 2000, interval: 5 },
    );
    store.add(asset.id, [sample(at(20))]);
    await vi.waitFor(
      () => {
        expect(store.stats().written).toBe(11);
      },
      { timeout: 2000, interval: 5 },
    );
    await store.close();
  });

  it('settles what it held when asked, while samples keep arriving (flush would wait for those too)', async () => {
    const { t } = use();
    t.clock.set(at(3600));
    const asset = await t.createAsset();
    const store = storeFor(t, { batchSize: 100_000 });
    store.add(
      asset.id,
      Array.from({ length: 1_000 }, (_, i) => sample(at(i))),
    );
    const state = { settled: false };
    const waiting = store.settled().then(() => {
      state.settled = true;
    });
    // An agent that never stops: a sample every millisecond or so, at most 10,000 of them (10 s and more: far
    // longer than one transaction of the store takes, even on a loaded PostgreSQL; counting event-loop turns
    // instead ran out first on a busy machine).
    let added = 0;
    while (!state.settled && added < 10_000) {
      store.add(asset.id, [sample(at(1_000 + (added % 2_000)))]);
      added += 1;
      await new Promise((r) => setTimeout(r, 1));
    }
    await waiting;

    expect(added).toBeLessThan(10_000);
    expect(store.stats().written).toBeGreaterThanOrEqual(1_000);
    await store.close();
    expect(store.stats()).toMatchObject({ written: 1_000 + added, dropped: 0, rejected: 0 });
    await expect(store.settled()).resolves.toBeUndefined();
  });

  it('deletes samples older than the retention', async () => {
    const { t } = use();
    t.clock.set(at(0));
    const asset = await t.createAsset();
    const store = storeFor(t, { retentionDays: 7 });
    store.add(asset.id, [sample(at(0)), sample(at(90))]);
    t.clock.set(at(3 * 24 * 3600));
    store.add(asset.id, [sample(at(3 * 24 * 3600 - 3600)), sample(at(3 * 24 * 3600))]);
    await store.flush();

    t.clock.set(at(7 * 24 * 3600 + 120));
    const before = await countMetricSamples(t.hub.database.db);
    const deleted = await store.prune();

    // Samples of earlier tests in this hub go too; the count must match what left the table.
    expect(deleted).toBeGreaterThanOrEqual(2);
    expect(await countMetricSamples(t.hub.database.db)).toBe(before - deleted);
    const left = await t.hub.database.db
      .selectFrom('metric_samples')
      .select('ts')
      .where('asset_id', '=', asset.id)
      .orderBy('ts')
      .execute();
    expect(left.map((r) => r.ts)).toEqual([
      at(3 * 24 * 3600 - 3600).toISOString(),
      at(3 * 24 * 3600).toISOString(),
    ]);
    expect(await store.prune()).toBe(0);
    await store.close();
  });

  it('deletes expired samples of many assets, however many each has, and keeps the rest', async () => {
    const { t } = use();
    const day = 24 * 3600;
    t.clock.set(at(40 * day));
    const steady = await t.createAsset();
    const stamped = await t.createAsset();
    const recent = await t.createAsset();
    const store = storeFor(t, { retentionDays: 7, maxBuffered: 20_000 });
    // More expired samples than one delete takes: one a second, and thousands stamped alike.
    store.add(
      steady.id,
      Array.from({ length: 12_000 }, (_, i) => sample(at(40 * day - 6 * day + i))),
    );
    store.add(
      stamped.id,
      Array.from({ length: 6_000 }, () => sample(at(40 * day - 6 * day))),
    );
    store.add(stamped.id, [sample(at(40 * day - 1000))]);
    store.add(recent.id, [sample(at(40 * day - 10)), sample(at(40 * day))]);
    await store.flush();
    expect(store.stats()).toMatchObject({ written: 18_003, dropped: 0, rejected: 0 });

    // A day later the first 11,000 of the steady asset's samples and all the alike ones have expired.
    t.clock.set(at(41 * day + 11_000));
    const before = await countMetricSamples(t.hub.database.db);
    const deleted = await store.prune();

    expect(deleted).toBeGreaterThanOrEqual(17_000);
    expect(await countMetricSamples(t.hub.database.db)).toBe(before - deleted);
    const left = async (assetId: string) =>
      (
        await t.hub.database.db
          .selectFrom('metric_samples')
          .select('ts')
          .where('asset_id', '=', assetId)
          .orderBy('ts')
          .execute()
      ).map((r) => r.ts);
    expect(await left(steady.id)).toEqual(
      Array.from({ length: 1_000 }, (_, i) => at(40 * day - 6 * day + 11_000 + i).toISOString()),
    );
    expect(await left(stamped.id)).toEqual([at(40 * day - 1000).toISOString()]);
    expect(await left(recent.id)).toEqual([at(40 * day - 10).toISOString(), at(40 * day).toISOString()]);
    await store.close();
  });

  it('writes samples of many assets reporting in any order: each asset keeps its whole series', async () => {
    const { t, ops } = use();
    t.clock.set(at(50 * 24 * 3600));
    const assets = await Promise.all(Array.from({ length: 7 }, () => t.createAsset()));
    const store = storeFor(t, { batchSize: 64, maxTransactionRows: 256 });
    const first = 50 * 24 * 3600 - 600;
    // Every second each asset reports once, in an order that changes from second to second.
    for (let second = 0; second < 300; second++) {
      for (let k = 0; k < assets.length; k++) {
        const index = (k * 3 + second) % assets.length;
        const asset = assets[index] as (typeof assets)[number];
        store.add(asset.id, [sample(at(first + second), { cpu_percent: index, load1: second })]);
      }
    }
    await store.close();

    expect(store.stats()).toEqual({ buffered: 0, written: 2_100, dropped: 0, rejected: 0 });
    for (const [index, asset] of assets.entries()) {
      const res = await ops.request(
        'GET',
        `/api/v2/assets/${asset.id}/metrics?from=${at(first).toISOString()}&to=${at(first + 299).toISOString()}`,
      );
      const series = (res.json.data as MetricsSeries).samples;
      expect(series.map((s) => s.load1)).toEqual(Array.from({ length: 300 }, (_, second) => second));
      expect(series.every((s) => s.cpu_percent === index)).toBe(true);
    }
  });

  it('writes many batches in few transactions, every sample once, canonical timestamps', async () => {
    const { t } = use();
    t.clock.set(at(10 * 24 * 3600));
    const asset = await t.createAsset();
    const store = storeFor(t, { batchSize: 100, maxTransactionRows: 1_000 });
    const first = 10 * 24 * 3600 - 2_345;
    // Whole seconds without milliseconds: readable, stored in the canonical form.
    const samples = Array.from({ length: 2_345 }, (_, i) =>
      sample(
        at(first + i)
          .toISOString()
          .replace('.000Z', 'Z'),
        { cpu_percent: i % 100 },
      ),
    );
    store.add(asset.id, samples);
    await store.close();

    expect(store.stats()).toEqual({ buffered: 0, written: 2_345, dropped: 0, rejected: 0 });
    const stored = await t.hub.database.db
      .selectFrom('metric_samples')
      .select(['ts', 'cpu_percent'])
      .where('asset_id', '=', asset.id)
      .orderBy('ts')
      .execute();
    expect(stored).toHaveLength(2_345);
    expect(stored.map((r) => r.ts)).toEqual(samples.map((_, i) => at(first + i).toISOString()));
    expect(stored.map((r) => r.cpu_percent)).toEqual(samples.map((_, i) => i % 100));
  });

  it('never writes inside a transaction of someone else: its samples survive that rollback', async () => {
    const { t } = use();
    const now = 11 * 24 * 3600;
    t.clock.set(at(now));
    const asset = await t.createAsset();
    const store = storeFor(t);
    let flushing: Promise<void> = Promise.resolve();
    const rolledBack = t.hub.database.db.transaction().execute(async (trx) => {
      await trx
        .insertInto('metric_samples')
        .values({
          asset_id: asset.id,
          ts: at(now - 1).toISOString(),
          cpu_percent: 1,
          memory_used_bytes: 1,
          memory_total_bytes: 1,
          disk_used_bytes: 1,
          disk_total_bytes: 1,
          load1: 1,
          net_rx_bytes: 1,
          net_tx_bytes: 1,
        })
        .execute();
      store.add(asset.id, [sample(at(now))]);
      flushing = store.flush();
      // The store's write is due while this transaction is still open.
      await new Promise((resolve) => setTimeout(resolve, 30));
      throw new Error('roll back');
    });

    await expect(rolledBack).rejects.toThrow('roll back');
    await flushing;
    expect(store.stats()).toMatchObject({ written: 1, dropped: 0 });
    const stored = await t.hub.database.db
      .selectFrom('metric_samples')
      .select('ts')
      .where('asset_id', '=', asset.id)
      .execute();
    expect(stored.map((r) => r.ts)).toEqual([at(now).toISOString()]);
    await store.close();
  });

  it('summarizes the fleet from the latest sample per asset within five minutes, scoped to the caller', async () => {
    const { t, ops } = use();
    // Earlier tests in this block left samples; start well after them so only these count.
    t.clock.set(at(100 * 24 * 3600));
    const now = t.clock.now().getTime();
    const ago = (s: number) => new Date(now - s * 1000);
    const a = await t.createAsset();
    const b = await t.createAsset();
    const stale = await t.createAsset();
    const silent = await t.createAsset();
    const store = storeFor(t);
    store.add(a.id, [
      sample(ago(200), { cpu_percent: 90, memory_used_bytes: 8_000 }),
      sample(ago(30), {
        cpu_percent: 20,
        memory_used_bytes: 4_000,
        memory_total_bytes: 8_000,
        disk_used_bytes: 10,
        disk_total_bytes: 100,
      }),
    ]);
    store.add(b.id, [
      sample(ago(60), {
        cpu_percent: 40,
        memory_used_bytes: 1_000,
        memory_total_bytes: 4_000,
        disk_used_bytes: 30,
        disk_total_bytes: 100,
      }),
    ]);
    store.add(stale.id, [sample(ago(400), { cpu_percent: 100 })]);
    await store.close();
    ops.gateway.connect(a.id);
    ops.gateway.connect(silent.id);
    const assetsNow = (await t.hub.database.db.selectFrom('assets').select('id').execute()).length;

    const res = await ops.request('GET', '/api/v2/metrics/overview');

    expect(res.status).toBe(200);
    expect(res.json.data as MetricsOverview).toEqual({
      assets_total: assetsNow,
      assets_online: 2,
      assets_reporting: 2,
      cpu_percent_avg: 30,
      memory_used_percent_avg: 37.5,
      disk_used_percent_avg: 20,
      window_minutes: 5,
      generated_at: new Date(now).toISOString(),
    });

    const key = await t.createKey({
      role: 'viewer',
      scopes: ['metrics:read'],
      allowed_assets: [b.id, silent.id],
    });
    const scoped = await ops.request('GET', '/api/v2/metrics/overview', { key: key.raw_key });
    expect(scoped.json.data).toMatchObject({
      assets_total: 2,
      assets_online: 1,
      assets_reporting: 1,
      cpu_percent_avg: 40,
      memory_used_percent_avg: 25,
      disk_used_percent_avg: 30,
    });

    const nothing = await t.createKey({
      role: 'viewer',
      scopes: ['metrics:read'],
      allowed_assets: [stale.id],
    });
    const empty = await ops.request('GET', '/api/v2/metrics/overview', { key: nothing.raw_key });
    expect(empty.json.data).toMatchObject({
      assets_total: 1,
      assets_reporting: 0,
      cpu_percent_avg: null,
      memory_used_percent_avg: null,
    });

    const noScope = await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    expect((await ops.request('GET', '/api/v2/metrics/overview', { key: noScope.raw_key })).status).toBe(403);
  });
});
