/**
 * Metric history and the fleet overview, read from the hub's own store: both work while an asset is offline.
 * Both respect allowed_assets (ARCHITECTURE.md security rule 3).
 */
import type { MetricSample, MetricsOverview, MetricsQuery, MetricsSeries } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type Principal } from '../../access/principal.js';
import { assetNotFound } from '../../agents/agent-call.js';
import { visibleAssetIds, type AssetService } from '../assets/assets.service.js';
import { latestSamplesSince, listMetricSamples, samplesSince, type MetricRow } from './metrics.repository.js';

export interface MetricsService {
  series(principal: Principal, assetId: string, query: MetricsQuery): Promise<MetricsSeries>;
  overview(principal: Principal): Promise<MetricsOverview>;
  /** For the hub's own rules (alerts): the samples at or after `since` of these assets, by asset. */
  recentSamples(assetIds: readonly string[], since: Date): Promise<Map<string, MetricSample[]>>;
}

export interface MetricsServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  gateway: Pick<AgentGateway, 'sessions'>;
  assets: Pick<AssetService, 'findRow' | 'count'>;
}

const hourMs = 60 * 60 * 1000;
const overviewWindowMinutes = 5;

function presentSample(row: MetricRow): MetricSample {
  return {
    ts: row.ts,
    cpu_percent: row.cpu_percent,
    memory_used_bytes: Number(row.memory_used_bytes),
    memory_total_bytes: Number(row.memory_total_bytes),
    disk_used_bytes: Number(row.disk_used_bytes),
    disk_total_bytes: Number(row.disk_total_bytes),
    load1: row.load1,
    net_rx_bytes: Number(row.net_rx_bytes),
    net_tx_bytes: Number(row.net_tx_bytes),
  };
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  return Math.round((sum / values.length) * 100) / 100;
}

export function createMetricsService(deps: MetricsServiceDeps): MetricsService {
  const { db, clock, gateway, assets } = deps;

  return {
    async series(principal, assetId, query) {
      if (!canSeeAsset(principal, assetId)) throw assetNotFound(assetId);
      if (!(await assets.findRow(assetId))) throw assetNotFound(assetId);
      const now = clock.now().getTime();
      const toMs = query.to !== undefined ? Date.parse(query.to) : now;
      const fromMs = query.from !== undefined ? Date.parse(query.from) : toMs - hourMs;
      if (Number.isNaN(fromMs)) throw validationError('from', 'must be an ISO 8601 date-time');
      if (Number.isNaN(toMs)) throw validationError('to', 'must be an ISO 8601 date-time');
      if (fromMs > toMs) throw validationError('from', 'must not be after to');
      const rows = await listMetricSamples(db, assetId, {
        from: new Date(fromMs).toISOString(),
        to: new Date(toMs).toISOString(),
        limit: query.limit ?? 1000,
      });
      return { asset_id: assetId, samples: rows.map(presentSample) };
    },

    async overview(principal) {
      const now = clock.now();
      const visible = visibleAssetIds(principal);
      const since = new Date(now.getTime() - overviewWindowMinutes * 60 * 1000).toISOString();
      const [total, rows] = await Promise.all([
        assets.count(visible),
        latestSamplesSince(db, since, visible),
      ]);
      // Two samples of one asset can share the latest timestamp: each asset counts once.
      const latest = new Map<string, MetricRow>();
      for (const row of rows) if (!latest.has(row.asset_id)) latest.set(row.asset_id, row);
      const samples = [...latest.values()].map(presentSample);
      const percent = (used: number, size: number) => (used / size) * 100;
      return {
        assets_total: total,
        assets_online: gateway.sessions().filter((s) => canSeeAsset(principal, s.assetId)).length,
        assets_reporting: samples.length,
        cpu_percent_avg: mean(samples.map((s) => s.cpu_percent)),
        memory_used_percent_avg: mean(
          samples
            .filter((s) => s.memory_total_bytes > 0)
            .map((s) => percent(s.memory_used_bytes, s.memory_total_bytes)),
        ),
        disk_used_percent_avg: mean(
          samples
            .filter((s) => s.disk_total_bytes > 0)
            .map((s) => percent(s.disk_used_bytes, s.disk_total_bytes)),
        ),
        window_minutes: overviewWindowMinutes,
        generated_at: now.toISOString(),
      };
    },

    async recentSamples(assetIds, since) {
      const bySamples = new Map<string, MetricSample[]>();
      if (assetIds.length === 0) return bySamples;
      for (const row of await samplesSince(db, assetIds, since.toISOString())) {
        const list = bySamples.get(row.asset_id) ?? [];
        list.push(presentSample(row));
        bySamples.set(row.asset_id, list);
      }
      return bySamples;
    },
  };
}
