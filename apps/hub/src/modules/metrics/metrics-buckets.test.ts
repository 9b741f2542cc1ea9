import { describe, expect, it } from 'vitest';
import { metricsBucketLimits, type MetricSample, type MetricsSeries } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useOperations } from '../../testing/operations-app.js';
import { bucketCount, roundStep } from './metrics.service.js';
import { createMetricsStore } from './metrics.store.js';

const start = new Date('2026-10-01T00:00:00.000Z');
const at = (seconds: number) => new Date(start.getTime() + seconds * 1000);

function sample(seconds: number, cpu: number, load = cpu / 10): MetricSample {
  return {
    ts: at(seconds).toISOString(),
    cpu_percent: cpu,
    memory_used_bytes: 1_000 + cpu,
    memory_total_bytes: 8_000,
    disk_used_bytes: 50,
    disk_total_bytes: 100,
    load1: load,
    net_rx_bytes: 5_000_000_000 + cpu,
    net_tx_bytes: 42,
  };
}

describe('round steps', () => {
  it('picks the smallest round step that keeps the range within the bound', () => {
    const day = 86_400_000;
    const from = start.getTime();
    expect(roundStep(from, from + 3_600_000, 1000)).toBe(5);
    expect(roundStep(from, from + 7 * day, 1000)).toBe(900);
    expect(roundStep(from, from + 30 * day, 1000)).toBe(3600);
    expect(roundStep(from, from + 365 * day, 10)).toBe(39 * 86_400);
    for (const [range, buckets] of [
      [30 * day, 1000],
      [7 * day + 17, 7],
      [1234, 1],
    ] as const) {
      const step = roundStep(from + 333, from + 333 + range, buckets);
      expect(bucketCount(from + 333, from + 333 + range, step)).toBeLessThanOrEqual(buckets);
    }
  });
});

describe.each(databaseTargets())('bucketed metric history ($name)', ({ options }) => {
  const use = useOperations(options);

  it('answers min, max and mean per step, leaves silent steps out, and keeps the raw shape unasked', async () => {
    const { t, ops } = use();
    t.clock.set(at(7200));
    const asset = await t.createAsset();
    const store = createMetricsStore({
      db: t.hub.database.db,
      clock: t.clock,
      flushIntervalMs: 0,
      retentionIntervalMs: 0,
    });
    // Every 10 s for the first 10 minutes, silence for 20 minutes, then every 10 s again up to 40 minutes.
    const seconds = [
      ...Array.from({ length: 60 }, (_, i) => i * 10),
      ...Array.from({ length: 60 }, (_, i) => 1800 + i * 10),
    ];
    const samples = seconds.map((s) => sample(s, (s / 10) % 7));
    store.add(asset.id, samples);
    await store.close();
    const range = `from=${at(0).toISOString()}&to=${at(2400).toISOString()}`;

    const res = await ops.request('GET', `/api/v2/assets/${asset.id}/metrics?${range}&step=300`);

    expect(res.status).toBe(200);
    const series = res.json.data as MetricsSeries;
    expect(series.samples).toEqual([]);
    expect(series.step_s).toBe(300);
    const buckets = series.buckets ?? [];
    // 0–10 min: 2 buckets; 10–30 min silent: no bucket; 30–40 min: 2 buckets.
    expect(buckets.map((b) => b.t)).toEqual([0, 300, 1800, 2100].map((s) => at(s).toISOString()));
    for (const bucket of buckets) {
      const bucketStart = (Date.parse(bucket.t) - start.getTime()) / 1000;
      const inside = samples.filter(
        (s, i) => (seconds[i] ?? -1) >= bucketStart && (seconds[i] ?? -1) < bucketStart + 300,
      );
      const cpu = inside.map((s) => s.cpu_percent);
      expect(bucket.n).toBe(inside.length);
      expect(bucket.cpu_percent.min).toBe(Math.min(...cpu));
      expect(bucket.cpu_percent.max).toBe(Math.max(...cpu));
      expect(bucket.cpu_percent.avg).toBeCloseTo(cpu.reduce((a, b) => a + b, 0) / cpu.length, 5);
      const rx = inside.map((s) => s.net_rx_bytes);
      expect(bucket.net_rx_bytes.max).toBe(Math.max(...rx));
      expect(bucket.net_rx_bytes.avg).toBeCloseTo(rx.reduce((a, b) => a + b, 0) / rx.length, 0);
      expect(bucket.memory_total_bytes).toEqual({ min: 8000, max: 8000, avg: 8000 });
    }

    const raw = await ops.request('GET', `/api/v2/assets/${asset.id}/metrics?${range}&limit=10000`);
    const rawSeries = raw.json.data as MetricsSeries;
    expect(rawSeries.samples).toHaveLength(120);
    expect(rawSeries.buckets).toBeUndefined();
  });

  it('answers 30 days of 10-s samples within the bound of buckets', async () => {
    const { t, ops } = use();
    t.clock.set(at(30 * 86_400));
    const asset = await t.createAsset();
    const store = createMetricsStore({
      db: t.hub.database.db,
      clock: t.clock,
      flushIntervalMs: 0,
      retentionIntervalMs: 0,
      retentionDays: 60,
    });
    const total = 30 * 8640;
    for (let i = 0; i < total; i += 8640) {
      store.add(
        asset.id,
        Array.from({ length: 8640 }, (_, j) => sample((i + j) * 10, (i + j) % 100)),
      );
      await store.flush();
    }
    await store.close();

    const res = await ops.request(
      'GET',
      `/api/v2/assets/${asset.id}/metrics?from=${at(0).toISOString()}&to=${at(30 * 86_400).toISOString()}&buckets=1000`,
    );

    expect(res.status).toBe(200);
    const series = res.json.data as MetricsSeries;
    const buckets = series.buckets ?? [];
    expect(buckets.length).toBeLessThanOrEqual(metricsBucketLimits.maxBuckets);
    expect(buckets.length).toBe(720);
    expect(series.step_s).toBe(3600);
    expect(buckets.reduce((sum, b) => sum + b.n, 0)).toBe(total);
    expect(buckets.every((b) => b.cpu_percent.min === 0 && b.cpu_percent.max === 99)).toBe(true);
  }, 120_000);

  it('refuses unfit buckets with the reason, and hides assets outside allowed_assets', async () => {
    const { t, ops } = use();
    t.clock.set(at(40 * 86_400));
    const mine = await t.createAsset();
    const other = await t.createAsset();
    const store = createMetricsStore({
      db: t.hub.database.db,
      clock: t.clock,
      flushIntervalMs: 0,
      retentionIntervalMs: 0,
      retentionDays: 60,
    });
    store.add(mine.id, [sample(39 * 86_400, 5)]);
    store.add(other.id, [sample(39 * 86_400, 6)]);
    await store.close();
    const key = await t.createKey({ role: 'viewer', scopes: ['metrics:read'], allowed_assets: [mine.id] });
    const week = `from=${at(33 * 86_400).toISOString()}&to=${at(40 * 86_400).toISOString()}`;
    const ask = (id: string, query: string) =>
      ops.request('GET', `/api/v2/assets/${id}/metrics?${week}&${query}`, { key: key.raw_key });

    const tooShort = await ask(mine.id, 'step=60');
    const both = await ask(mine.id, 'step=3600&buckets=100');
    const zero = await ask(mine.id, 'buckets=0');
    const tooMany = await ask(mine.id, 'buckets=1001');
    const notNumber = await ask(mine.id, 'step=hour');
    const hidden = await ask(other.id, 'buckets=100');
    const visible = await ask(mine.id, 'buckets=100');

    expect(tooShort.status).toBe(400);
    expect(JSON.stringify(tooShort.json)).toContain('at most 1000');
    expect(both.status).toBe(400);
    expect(JSON.stringify(both.json)).toContain('either step or buckets');
    expect(zero.status).toBe(400);
    expect(tooMany.status).toBe(400);
    expect(notNumber.status).toBe(400);
    expect(hidden.status).toBe(404);
    expect(visible.status).toBe(200);
    const series = visible.json.data as MetricsSeries;
    expect(series.step_s).toBe(7200);
    expect(series.buckets?.map((b) => b.cpu_percent.max)).toEqual([5]);
  });
});
