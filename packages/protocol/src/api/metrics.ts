/** Stored metric samples: one asset's history by time range, and a fleet-wide overview. */
import { Type, type Static } from 'typebox';
import { MetricSample } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, Timestamp, assetParam } from './shared.js';

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
} satisfies Record<string, RouteContract>;
