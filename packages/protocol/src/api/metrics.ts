/** Stored metric samples: one asset's history by time range, and a fleet-wide overview. */
import { Type, type Static } from 'typebox';
import { MetricSample } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, Timestamp, assetParam, literals } from './shared.js';

export const MetricsQuery = Type.Object({
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
});
export type MetricsQuery = Static<typeof MetricsQuery>;
export const MetricsSeries = Type.Object({ asset_id: Type.String(), samples: Type.Array(MetricSample) });
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
