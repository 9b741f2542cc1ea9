/**
 * The metric history of an asset shaped for charts: time ranges, the samples of a range fetched page by page
 * (the hub answers at most 10,000 a call, oldest first), and per-chart series with gaps where the agent was
 * silent. Pure except `fetchSamples`, which takes the call to make.
 */
import type { MetricAggregate, MetricBucket, MetricSample } from '@svc/protocol';

export const metricRanges = [
  { key: '1h', ms: 60 * 60 * 1000 },
  { key: '6h', ms: 6 * 60 * 60 * 1000 },
  { key: '24h', ms: 24 * 60 * 60 * 1000 },
  { key: '7d', ms: 7 * 24 * 60 * 60 * 1000 },
  { key: '30d', ms: 30 * 24 * 60 * 60 * 1000 },
] as const;

/** Ranges longer than this are asked bucketed (min, max and mean per step, docs/metrics.md). */
export const rawRangeMs = 6 * 60 * 60 * 1000;
/** How many buckets a bucketed range asks for: about one per pixel of a wide chart. */
export const chartBuckets = 600;
export type MetricRangeKey = (typeof metricRanges)[number]['key'];

export const samplesPerCall = 10_000;
/** At most this many calls for one range: 50,000 samples, a week at one sample every 12 s. */
const callsPerRange = 5;

export interface FetchedSamples {
  samples: MetricSample[];
  /** The range holds more samples than were fetched (the newest are missing). */
  truncated: boolean;
}

type PageCall = (query: { from: string; to: string; limit: number }) => Promise<MetricSample[]>;

/** The samples of `[from, to]`, following on from the last one while a page comes back full. */
export async function fetchSamples(call: PageCall, from: Date, to: Date): Promise<FetchedSamples> {
  const samples: MetricSample[] = [];
  let cursor = from.toISOString();
  for (let calls = 0; calls < callsPerRange; calls += 1) {
    const page = await call({ from: cursor, to: to.toISOString(), limit: samplesPerCall });
    const last = samples.at(-1)?.ts;
    // The next page starts at the last timestamp (inclusive): samples already held are skipped.
    for (const sample of page) if (last === undefined || sample.ts > last) samples.push(sample);
    if (page.length < samplesPerCall) return { samples, truncated: false };
    const newest = page.at(-1)?.ts;
    if (newest === undefined || newest === cursor) return { samples, truncated: true };
    cursor = newest;
  }
  return { samples, truncated: true };
}

type Values = (number | null)[];
export type SeriesKey = 'cpu' | 'memory' | 'disk' | 'load' | 'rx' | 'tx';
const seriesKeys: readonly SeriesKey[] = ['cpu', 'memory', 'disk', 'load', 'rx', 'tx'];

/** The lowest and highest value of each point's bucket (bucketed series only). */
export interface Band {
  lo: Values;
  hi: Values;
}

export interface ChartSeries extends Record<SeriesKey, Values> {
  /** Seconds since the epoch (what uPlot takes). */
  times: number[];
  cpu: Values;
  memory: Values;
  disk: Values;
  load: Values;
  /** Bytes per second over the span since the previous sample. */
  rx: Values;
  tx: Values;
  /** Bucketed: each point is a bucket's mean, its band the bucket's min and max. */
  bands?: Record<SeriesKey, Band>;
  /** Where the agent was silent: [start, end] in seconds since the epoch. */
  gaps: [number, number][];
}

function percent(used: number, total: number): number | null {
  return total > 0 ? (used / total) * 100 : null;
}

function median(values: number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/**
 * One point per sample; where the agent was silent for more than five usual intervals, a gap (a null point)
 * so the line breaks instead of drawing a slope over hours without data.
 */
export function chartSeries(samples: readonly MetricSample[]): ChartSeries {
  const out: ChartSeries = { times: [], cpu: [], memory: [], disk: [], load: [], rx: [], tx: [], gaps: [] };
  const seconds = samples.map((s) => Date.parse(s.ts) / 1000);
  const steps = seconds.slice(1).map((t, i) => t - (seconds[i] ?? t));
  const gapAfter = median(steps) * 5;
  const pushGap = (time: number) => {
    out.times.push(time);
    for (const series of [out.cpu, out.memory, out.disk, out.load, out.rx, out.tx]) series.push(null);
  };
  samples.forEach((s, i) => {
    const time = seconds[i] ?? 0;
    const previous = i > 0 ? seconds[i - 1] : undefined;
    const span = previous === undefined ? null : time - previous;
    if (span !== null && gapAfter > 0 && span > gapAfter) {
      pushGap(time - span / 2);
      out.gaps.push([time - span, time]);
    }
    out.times.push(time);
    out.cpu.push(s.cpu_percent);
    out.memory.push(percent(s.memory_used_bytes, s.memory_total_bytes));
    out.disk.push(percent(s.disk_used_bytes, s.disk_total_bytes));
    out.load.push(s.load1);
    const rate = span !== null && span > 0 && span <= gapAfter ? 1 / span : null;
    out.rx.push(rate === null ? null : s.net_rx_bytes * rate);
    out.tx.push(rate === null ? null : s.net_tx_bytes * rate);
  });
  return out;
}

/** One bucket's figures as the charts show them: the mean, and the lowest and highest. */
function bucketFigures(
  b: MetricBucket,
  stepS: number,
): Record<SeriesKey, [number | null, number | null, number | null]> {
  const pct = (
    used: MetricAggregate,
    total: MetricAggregate,
  ): [number | null, number | null, number | null] => [
    percent(used.avg, total.avg),
    percent(used.min, total.avg),
    percent(used.max, total.avg),
  ];
  // Each sample counts the bytes since the one before: the bucket's bytes over its step is its mean rate.
  const rate = (a: MetricAggregate): [number, number, number] => {
    const perSampleS = stepS / b.n;
    return [(a.avg * b.n) / stepS, a.min / perSampleS, a.max / perSampleS];
  };
  return {
    cpu: [b.cpu_percent.avg, b.cpu_percent.min, b.cpu_percent.max],
    memory: pct(b.memory_used_bytes, b.memory_total_bytes),
    disk: pct(b.disk_used_bytes, b.disk_total_bytes),
    load: [b.load1.avg, b.load1.min, b.load1.max],
    rx: rate(b.net_rx_bytes),
    tx: rate(b.net_tx_bytes),
  };
}

/**
 * Buckets as chart series: one point per bucket at its middle (the mean), a band from min to max, and a null
 * point wherever steps without a bucket lie between two buckets, so the line and band break there.
 */
export function bucketSeries(buckets: readonly MetricBucket[], stepS: number): ChartSeries {
  const empty = (): Band => ({ lo: [], hi: [] });
  const bands: Record<SeriesKey, Band> = {
    cpu: empty(),
    memory: empty(),
    disk: empty(),
    load: empty(),
    rx: empty(),
    tx: empty(),
  };
  const out: ChartSeries = {
    times: [],
    cpu: [],
    memory: [],
    disk: [],
    load: [],
    rx: [],
    tx: [],
    bands,
    gaps: [],
  };
  let previous: number | undefined;
  for (const bucket of buckets) {
    const start = Date.parse(bucket.t) / 1000;
    if (previous !== undefined && start - previous > stepS) {
      out.gaps.push([previous + stepS, start]);
      out.times.push(previous + stepS + stepS / 2);
      for (const key of seriesKeys) {
        out[key].push(null);
        bands[key].lo.push(null);
        bands[key].hi.push(null);
      }
    }
    previous = start;
    out.times.push(start + stepS / 2);
    const figures = bucketFigures(bucket, stepS);
    for (const key of seriesKeys) {
      const [avg, lo, hi] = figures[key];
      out[key].push(avg);
      bands[key].lo.push(lo);
      bands[key].hi.push(hi);
    }
  }
  return out;
}

/** Latest, mean and highest of a series (nulls left out), for the figures beside a chart. */
export function seriesFigures(values: readonly (number | null)[]): {
  latest: number | null;
  mean: number | null;
  max: number | null;
} {
  const numbers = values.filter((v): v is number => v !== null && Number.isFinite(v));
  if (numbers.length === 0) return { latest: null, mean: null, max: null };
  return {
    latest: numbers.at(-1) ?? null,
    mean: numbers.reduce((a, b) => a + b, 0) / numbers.length,
    max: Math.max(...numbers),
  };
}
