import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import {
  metricsBucketLimits,
  type MetricAggregate,
  type MetricBucket,
  type MetricSample,
  type MetricsSeries,
} from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { useOperations, type OperationsApp } from '../../testing/operations-app.js';
import { planBucketedRead, readLagMs } from './metrics-rollups.js';
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

const figures = [
  'cpu_percent',
  'memory_used_bytes',
  'memory_total_bytes',
  'disk_used_bytes',
  'disk_total_bytes',
  'load1',
  'net_rx_bytes',
  'net_tx_bytes',
] as const;

/** The buckets of `samples` over [fromMs, toMs] per `stepS`, aggregated here: what the hub must answer. */
function expectedBuckets(
  samples: readonly MetricSample[],
  fromMs: number,
  toMs: number,
  stepS: number,
): MetricBucket[] {
  const steps = new Map<number, MetricSample[]>();
  for (const s of samples) {
    const ms = Date.parse(s.ts);
    if (ms < fromMs || ms > toMs) continue;
    const b = Math.floor(ms / 1000 / stepS);
    steps.set(b, [...(steps.get(b) ?? []), s]);
  }
  return [...steps.entries()]
    .sort(([a], [b]) => a - b)
    .map(([b, inside]) => {
      const aggregate = (figure: (typeof figures)[number]): MetricAggregate => {
        const values = inside.map((s) => s[figure]);
        return {
          min: Math.min(...values),
          max: Math.max(...values),
          avg: values.reduce((x, y) => x + y, 0) / values.length,
        };
      };
      return {
        t: new Date(b * stepS * 1000).toISOString(),
        n: inside.length,
        ...(Object.fromEntries(figures.map((f) => [f, aggregate(f)])) as Record<
          (typeof figures)[number],
          MetricAggregate
        >),
      };
    });
}

/** Same steps, counts, minima and maxima; means equal but for the order floats were summed in. */
function expectSameBuckets(actual: readonly MetricBucket[], expected: readonly MetricBucket[]): void {
  expect(actual.map((b) => [b.t, b.n])).toEqual(expected.map((b) => [b.t, b.n]));
  actual.forEach((bucket, i) => {
    const want = expected[i] as MetricBucket;
    for (const figure of figures) {
      expect(bucket[figure].min).toBe(want[figure].min);
      expect(bucket[figure].max).toBe(want[figure].max);
      expect(Math.abs(bucket[figure].avg - want[figure].avg)).toBeLessThanOrEqual(
        1e-9 * Math.max(1, Math.abs(want[figure].avg)),
      );
    }
  });
}

/** Deterministic figures that are exact in PostgreSQL's 4-byte real (quarters, eighths) and past 2^32 in bytes. */
function varied(ms: number, k: number): MetricSample {
  const r = (k * 7919 + 104_729) % 9973;
  return {
    ts: new Date(ms).toISOString(),
    cpu_percent: (r % 400) / 4,
    memory_used_bytes: 2_000_000_000 + r * 1_000,
    memory_total_bytes: 8_000_000_000,
    disk_used_bytes: 50_000_000_000 + k,
    disk_total_bytes: 100_000_000_000,
    load1: (r % 64) / 8,
    net_rx_bytes: 5_000_000_000_000 + r * 12_345,
    net_tx_bytes: r,
  };
}

async function ask(
  ops: OperationsApp,
  assetId: string,
  fromMs: number,
  toMs: number,
  stepS: number,
): Promise<MetricBucket[]> {
  const from = new Date(fromMs).toISOString();
  const to = new Date(toMs).toISOString();
  const res = await ops.request(
    'GET',
    `/api/v2/assets/${assetId}/metrics?from=${from}&to=${to}&step=${stepS}`,
  );
  expect(res.status).toBe(200);
  const series = res.json.data as MetricsSeries;
  expect(series.step_s).toBe(stepS);
  return series.buckets ?? [];
}

async function rollupsOf(t: TestHub, assetId: string): Promise<number> {
  const row = await t.hub.database.db
    .selectFrom('metric_rollups')
    .select(sql<string | number>`count(*)`.as('n'))
    .where('asset_id', '=', assetId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

describe('reads split between rollups and samples', () => {
  const hour = 3_600_000;
  const base = Date.parse('2026-10-01T00:00:00.000Z');

  it('takes whole past steps from the rollups and the edges and the recent steps from the samples', () => {
    const plan = planBucketedRead(base + 137_000, base + 6 * hour - 59_000, 900, base + 30 * hour);
    expect(plan.rollups).toEqual({ fromS: base / 1000 + 900, toS: base / 1000 + 6 * 3600 - 900 - 300 });
    expect(plan.samples).toEqual([
      { from: new Date(base + 137_000).toISOString(), to: new Date(base + 900_000 - 1).toISOString() },
      {
        from: new Date(base + 6 * hour - 900_000).toISOString(),
        to: new Date(base + 6 * hour - 59_000).toISOString(),
      },
    ]);
    // Steps ending within readLagMs of now come from the samples.
    const recent = planBucketedRead(base, base + 2 * hour, 3600, base + 2 * hour + readLagMs - 1);
    expect(recent.rollups).toEqual({ fromS: base / 1000, toS: base / 1000 + 3600 - 300 });
    expect(recent.samples).toEqual([
      { from: new Date(base + hour).toISOString(), to: new Date(base + 2 * hour).toISOString() },
    ]);
  });

  it('reads only samples for steps that are not whole rollups or ranges inside one step', () => {
    expect(planBucketedRead(base, base + hour, 60, base + 30 * hour).rollups).toBeNull();
    expect(planBucketedRead(base, base + hour, 450, base + 30 * hour).rollups).toBeNull();
    expect(planBucketedRead(base + 1, base + hour + 1, 3600, base + 30 * hour)).toEqual({
      rollups: null,
      samples: [{ from: new Date(base + 1).toISOString(), to: new Date(base + hour + 1).toISOString() }],
    });
  });
});

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

  it('answers from the rollups exactly what the samples give, gaps and late samples included', async () => {
    const { t, ops } = use();
    const now = start.getTime() + 2 * 86_400_000;
    t.clock.set(new Date(now));
    const asset = await t.createAsset();
    const { store, rollups } = t.hub.metrics;
    // Every 10 s for 6 hours, silent for 1,500 s from 4,834 s on (across 5-minute bounds); then the 20 minutes
    // before now, which are read from the samples whatever the rollups hold.
    const samples: MetricSample[] = [];
    for (let s = 0; s < 6 * 3600; s += 10) {
      if (s >= 4834 && s < 4834 + 1500) continue;
      samples.push(varied(start.getTime() + s * 1000, samples.length));
    }
    for (let ms = now - 1_200_000; ms < now; ms += 10_000) samples.push(varied(ms, samples.length));
    store.add(asset.id, samples);
    await store.flush();
    const queries: [number, number, number][] = [
      [0, 6 * 3600, 300],
      [137, 6 * 3600 - 59, 900],
      [0, 6 * 3600, 3600],
      [-3600, 2 * 86_400, 7200],
      [4000, 8000, 300],
    ];
    const askAll = () =>
      Promise.all(
        queries.map(([from, to, step]) =>
          ask(ops, asset.id, start.getTime() + from * 1000, start.getTime() + to * 1000, step),
        ),
      );
    const expectAll = (answers: MetricBucket[][]) => {
      answers.forEach((answer, i) => {
        const [from, to, step] = queries[i] as [number, number, number];
        expectSameBuckets(
          answer,
          expectedBuckets(samples, start.getTime() + from * 1000, start.getTime() + to * 1000, step),
        );
      });
    };
    const fromSamples = await askAll();

    await rollups.pass();
    const fromRollups = await askAll();

    expect(await rollupsOf(t, asset.id)).toBeGreaterThan(0);
    expectAll(fromSamples);
    expectAll(fromRollups);
    // The silence is a gap: no 5-minute step inside it has a bucket.
    expect(fromRollups[4]?.map((b) => (Date.parse(b.t) - start.getTime()) / 1000)).toEqual([
      3900, 4200, 4500, 4800, 6300, 6600, 6900, 7200, 7500, 7800,
    ]);

    // A late sample, into a step rolled up long ago, counts once the next pass has run.
    const late = { ...varied(start.getTime() + 1_001_000, 7), cpu_percent: 100, net_tx_bytes: 9_999_999 };
    samples.push(late);
    store.add(asset.id, [late]);
    await store.flush();
    await rollups.pass();
    const afterLate = await askAll();
    expectAll(afterLate);
    expect(afterLate[0]?.find((b) => b.t === at(900).toISOString())?.cpu_percent.max).toBe(100);
  }, 60_000);

  it('drops expired rollups with the samples and recomputes the step the retention cuts', async () => {
    const { t, ops } = use();
    const now = start.getTime() + 3 * 3_600_000;
    t.clock.set(new Date(now));
    const asset = await t.createAsset();
    const { store, rollups } = t.hub.metrics;
    const samples = Array.from({ length: 720 }, (_, i) => varied(start.getTime() + i * 10_000, i));
    store.add(asset.id, samples);
    await store.flush();
    await rollups.pass();
    // Retention (7 days by default) now cuts 7 minutes into the second hour: inside a 5-minute step.
    const later = now + 7 * 86_400_000 - 2 * 3_600_000 + 420_000;
    t.clock.set(new Date(later));
    const cutoff = later - 7 * 86_400_000;

    await store.prune();
    await rollups.pass();
    const answer = await ask(ops, asset.id, start.getTime(), start.getTime() + 2 * 3_600_000, 300);

    const kept = samples.filter((s) => Date.parse(s.ts) >= cutoff);
    expectSameBuckets(answer, expectedBuckets(kept, start.getTime(), start.getTime() + 2 * 3_600_000, 300));
    expect(answer[0]?.t).toBe(at(3600 + 300).toISOString());
    expect(answer[0]?.n).toBe(18);
    expect(await rollupsOf(t, asset.id)).toBe(11);
  });

  it("deletes a deleted asset's rollups with its samples", async () => {
    const { t } = use();
    t.clock.set(at(3600));
    const asset = await t.createAsset();
    const { store, rollups, purger } = t.hub.metrics;
    store.add(
      asset.id,
      Array.from({ length: 100 }, (_, i) => varied(start.getTime() + i * 10_000, i)),
    );
    await store.flush();
    await rollups.pass();
    expect(await rollupsOf(t, asset.id)).toBe(4);

    const res = await t.request('DELETE', `/api/v2/assets/${asset.id}`);
    await purger.idle();

    expect(res.status).toBeLessThan(300);
    expect(await rollupsOf(t, asset.id)).toBe(0);
  });

  it('rolls up at start the samples stored before the rollups existed', async () => {
    const { t, ops } = use();
    t.clock.set(at(4 * 3600));
    const asset = await t.createAsset();
    const samples = Array.from({ length: 1000 }, (_, i) => varied(start.getTime() + i * 10_000, i));
    // Straight into the table, as a hub before migration 0037 left them (or a seed does).
    await t.hub.database.db
      .insertInto('metric_samples')
      .values(samples.map((s) => ({ asset_id: asset.id, ...s })))
      .execute();
    const range = [start.getTime(), start.getTime() + 3 * 3_600_000] as const;
    const before = await ask(ops, asset.id, ...range, 600);

    await t.hub.metrics.rollups.catchUp();
    const after = await ask(ops, asset.id, ...range, 600);

    expect(await rollupsOf(t, asset.id)).toBe(34);
    expectSameBuckets(before, expectedBuckets(samples, ...range, 600));
    expectSameBuckets(after, expectedBuckets(samples, ...range, 600));
  });

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
