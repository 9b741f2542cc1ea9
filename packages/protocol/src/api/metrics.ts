/** Stored metric samples: one asset's history by time range, and a fleet-wide overview. */
import { Type, type Static } from 'typebox';
import { MetricSample } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, Timestamp, assetParam, literals } from './shared.js';

/** Bounds of a bucketed history (docs/metrics.md, "Ranges and buckets"). */
export const metricsBucketLimits = {
  /** At most this many buckets in one answer, whatever the range. */
  maxBuckets: 1000,
  /** The shortest and longest bucket, in seconds. */
  minStepS: 1,
  maxStepS: 30 * 24 * 60 * 60,
} as const;

export const MetricsQuery = Type.Object({
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
  /**
   * Bucketed instead of raw: at most this many buckets for the range, the hub choosing a round step
   * (1 s, 5 s, 1 min, 1 h, 1 day…). Without `buckets` or `step` the answer is the raw samples, as before.
   */
  buckets: Type.Optional(Type.Integer({ minimum: 1, maximum: metricsBucketLimits.maxBuckets })),
  /** Bucketed with this step in seconds; the range may then span at most `maxBuckets` steps. */
  step: Type.Optional(
    Type.Integer({ minimum: metricsBucketLimits.minStepS, maximum: metricsBucketLimits.maxStepS }),
  ),
});
export type MetricsQuery = Static<typeof MetricsQuery>;

/** Lowest, highest and mean of one figure over a bucket's samples. */
export const MetricAggregate = Type.Object({ min: Type.Number(), max: Type.Number(), avg: Type.Number() });
export type MetricAggregate = Static<typeof MetricAggregate>;

/**
 * The samples of one step: `t` its start (a multiple of the step since the epoch), `n` how many samples it
 * holds. A step without samples has no bucket: that absence is the gap where the agent was silent.
 */
export const MetricBucket = Type.Object({
  t: Timestamp,
  n: Type.Integer({ minimum: 1 }),
  cpu_percent: MetricAggregate,
  memory_used_bytes: MetricAggregate,
  memory_total_bytes: MetricAggregate,
  disk_used_bytes: MetricAggregate,
  disk_total_bytes: MetricAggregate,
  load1: MetricAggregate,
  /** Bytes per sample (each sample counts the bytes since the one before it). */
  net_rx_bytes: MetricAggregate,
  net_tx_bytes: MetricAggregate,
});
export type MetricBucket = Static<typeof MetricBucket>;

export const MetricsSeries = Type.Object({
  asset_id: Type.String(),
  /** The raw samples; empty when the history was asked bucketed. */
  samples: Type.Array(MetricSample),
  /** Bucketed answers only: the step in seconds, and the buckets holding samples, oldest first. */
  step_s: Type.Optional(Type.Integer({ minimum: 1 })),
  buckets: Type.Optional(Type.Array(MetricBucket)),
  /** The range answered (bucketed answers only), so a chart can draw it whole, gaps included. */
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
});
export type MetricsSeries = Static<typeof MetricsSeries>;

export const MetricsOverview = Type.Object({
  assets_total: Type.Integer({ minimum: 0 }),
  assets_online: Type.Integer({ minimum: 0 }),
  assets_reporting: Type.Integer({ minimum: 0 }),
  cpu_percent_avg: Maybe(Type.Number()),
  memory_used_percent_avg: Maybe(Type.Number()),
  disk_used_percent_avg: Maybe(Type.Number()),
  window_minutes: Type.Integer({ minimum: 1 }),
  generated_at: Timestamp,
});
export type MetricsOverview = Static<typeof MetricsOverview>;

/** What the fleet's top-N is ranked by: the latest sample's CPU, memory or disk use (percent), or load1. */
export const topMetrics = ['cpu', 'memory', 'disk', 'load'] as const;
export type TopMetric = (typeof topMetrics)[number];
export const metricsTopLimit = 100;

export const MetricsTopQuery = Type.Object(
  {
    metric: literals(topMetrics),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: metricsTopLimit, default: 10 })),
  },
  { additionalProperties: false },
);
export type MetricsTopQuery = Static<typeof MetricsTopQuery>;

/** One asset of the top-N: its latest sample's values, `value` the one ranked by. */
export const MetricsTopEntry = Type.Object({
  asset_id: Type.String(),
  name: Type.String(),
  ts: Timestamp,
  value: Type.Number(),
  cpu_percent: Type.Number(),
  memory_used_percent: Maybe(Type.Number()),
  disk_used_percent: Maybe(Type.Number()),
  load1: Type.Number(),
});
export type MetricsTopEntry = Static<typeof MetricsTopEntry>;

export const MetricsTop = Type.Object({
  metric: literals(topMetrics),
  /** Only samples this recent count: an asset silent for longer is not among the busiest. */
  window_minutes: Type.Integer({ minimum: 1 }),
  /** How many visible assets reported in the window (the ranked set the top is taken from). */
  assets_reporting: Type.Integer({ minimum: 0 }),
  generated_at: Timestamp,
  assets: Type.Array(MetricsTopEntry),
});
export type MetricsTop = Static<typeof MetricsTop>;

export const metricsContracts = {
  'metrics.history': defineRoute({
    name: 'metrics.history',
    operationId: 'system.metrics',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/metrics',
    auth: 'scope',
    scope: 'metrics:read',
    summary: 'Metric history of an asset, by time range',
    asset: assetParam,
    params: IdParams,
    query: MetricsQuery,
    response: MetricsSeries,
  }),
  'metrics.overview': defineRoute({
    name: 'metrics.overview',
    surface: 'v2',
    method: 'GET',
    path: '/metrics/overview',
    auth: 'scope',
    scope: 'metrics:read',
    summary: 'Fleet-wide summary of recent metrics',
    response: MetricsOverview,
  }),
  'metrics.top': defineRoute({
    name: 'metrics.top',
    surface: 'v2',
    method: 'GET',
    path: '/metrics/top',
    auth: 'scope',
    scope: 'metrics:read',
    summary: 'The assets with the highest CPU, memory, disk or load now, fleet-wide, in one call',
    query: MetricsTopQuery,
    response: MetricsTop,
  }),
} satisfies Record<string, RouteContract>;
