/**
 * Metric history and the fleet overview, read from the hub's own store: both work while an asset is offline.
 * Both respect allowed_assets (ARCHITECTURE.md security rule 3).
 */
import {
  metricsBucketLimits,
  type MetricAggregate,
  type MetricBucket,
  type MetricSample,
  type MetricsOverview,
  type MetricsQuery,
  type MetricsSeries,
  type MetricsTop,
  type MetricsTopEntry,
  type MetricsTopQuery,
  type TopMetric,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import { validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type Principal } from '../../access/principal.js';
import { assetNotFound } from '../../agents/agent-call.js';
import { visibleAssetIds, type AssetService } from '../assets/assets.service.js';
import {
  bucketMetricRollups,
  bucketMetricSamples,
  bucketedColumns,
  hasMetricRollups,
  latestNamedSamplesSince,
  latestSamplesSince,
  listMetricSamples,
  samplesSince,
  type BucketRow,
  type MetricRow,
} from './metrics.repository.js';
import { planBucketedRead } from './metrics-rollups.js';

export interface MetricsService {
  series(principal: Principal, assetId: string, query: MetricsQuery): Promise<MetricsSeries>;
  overview(principal: Principal): Promise<MetricsOverview>;
  /** The visible assets whose latest sample ranks highest on one metric, fleet-wide (docs/metrics.md). */
  top(principal: Principal, query: MetricsTopQuery): Promise<MetricsTop>;
  /** For the hub's own rules (alerts): the samples at or after `since` of these assets, by asset. */
  recentSamples(assetIds: readonly string[], since: Date): Promise<Map<string, MetricSample[]>>;
}

export interface MetricsServiceDeps {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
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

/** The round steps a bucketed history picks from, in seconds; beyond the last, whole days. */
const roundSteps = [
  1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400,
] as const;
const dayS = 86_400;

/** How many steps of `stepS` the range touches (buckets are aligned on the epoch). */
export function bucketCount(fromMs: number, toMs: number, stepS: number): number {
  const stepMs = stepS * 1000;
  return Math.floor(toMs / stepMs) - Math.floor(fromMs / stepMs) + 1;
}

/** The smallest round step whose buckets over the range are at most `buckets`. */
export function roundStep(fromMs: number, toMs: number, buckets: number): number {
  for (const step of roundSteps) if (bucketCount(fromMs, toMs, step) <= buckets) return step;
  let days = Math.max(1, Math.ceil((toMs - fromMs) / (dayS * 1000) / buckets));
  while (bucketCount(fromMs, toMs, days * dayS) > buckets) days += 1;
  return days * dayS;
}

/** The step a query asks for (explicit or from `buckets`), or undefined for raw samples; 400 when unfit. */
function stepOf(query: MetricsQuery, fromMs: number, toMs: number): number | undefined {
  if (query.step !== undefined && query.buckets !== undefined)
    throw validationError('step', 'give either step or buckets, not both');
  if (query.buckets !== undefined) {
    const step = roundStep(fromMs, toMs, query.buckets);
    if (step > metricsBucketLimits.maxStepS)
      throw validationError('buckets', 'too few for this range: each would span more than 30 days');
    return step;
  }
  if (query.step === undefined) return undefined;
  const count = bucketCount(fromMs, toMs, query.step);
  if (count > metricsBucketLimits.maxBuckets)
    throw validationError(
      'step',
      `too short for this range: ${count} buckets, at most ${metricsBucketLimits.maxBuckets}`,
    );
  return query.step;
}

function presentBucket(row: BucketRow, stepS: number): MetricBucket {
  const aggregate = (column: (typeof bucketedColumns)[number]): MetricAggregate => ({
    min: Number(row[`min_${column}`]),
    max: Number(row[`max_${column}`]),
    avg: Number(row[`avg_${column}`]),
  });
  return {
    t: new Date(Number(row.b) * stepS * 1000).toISOString(),
    n: Number(row.n),
    cpu_percent: aggregate('cpu_percent'),
    memory_used_bytes: aggregate('memory_used_bytes'),
    memory_total_bytes: aggregate('memory_total_bytes'),
    disk_used_bytes: aggregate('disk_used_bytes'),
    disk_total_bytes: aggregate('disk_total_bytes'),
    load1: aggregate('load1'),
    net_rx_bytes: aggregate('net_rx_bytes'),
    net_tx_bytes: aggregate('net_tx_bytes'),
  };
}

function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  const sum = values.reduce((a, b) => a + b, 0);
  return Math.round((sum / values.length) * 100) / 100;
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function usedPercent(used: number, size: number): number | null {
  return size > 0 ? Math.round((used / size) * 10_000) / 100 : null;
}

/** An asset's latest values as the top-N shows them; null when the ranked one is unknown (no size). */
function topEntry(row: MetricRow & { name: string }, metric: TopMetric): MetricsTopEntry | null {
  const memory = usedPercent(Number(row.memory_used_bytes), Number(row.memory_total_bytes));
  const disk = usedPercent(Number(row.disk_used_bytes), Number(row.disk_total_bytes));
  const values: Record<TopMetric, number | null> = {
    cpu: row.cpu_percent,
    memory,
    disk,
    load: row.load1,
  };
  const value = values[metric];
  if (value === null || !Number.isFinite(value)) return null;
  return {
    asset_id: row.asset_id,
    name: row.name,
    ts: row.ts,
    value,
    cpu_percent: row.cpu_percent,
    memory_used_percent: memory,
    disk_used_percent: disk,
    load1: row.load1,
  };
}

export function createMetricsService(deps: MetricsServiceDeps): MetricsService {
  const { db, clock, gateway, assets } = deps;

  /**
   * The buckets of a range: whole buckets of the past from the 5-minute rollups, the range's edges and its
   * last minutes from the samples (decision 0097). The parts cover disjoint steps, so they are put end to end.
   * An asset without any rollup (its samples not rolled up yet after migration 0037) is read from its samples.
   */
  async function bucketedRows(
    assetId: string,
    fromMs: number,
    toMs: number,
    stepS: number,
    nowMs: number,
  ): Promise<BucketRow[]> {
    const plan = planBucketedRead(fromMs, toMs, stepS, nowMs);
    if (plan.rollups === null || !(await hasMetricRollups(db, assetId))) {
      const range = { from: new Date(fromMs).toISOString(), to: new Date(toMs).toISOString(), stepS };
      return bucketMetricSamples(db, deps.dialect, assetId, range);
    }
    const rollups = plan.rollups;
    const parts = await Promise.all([
      bucketMetricRollups(db, deps.dialect, assetId, { ...rollups, stepS }),
      ...plan.samples.map((range) => bucketMetricSamples(db, deps.dialect, assetId, { ...range, stepS })),
    ]);
    return parts.flat().sort((a, b) => Number(a.b) - Number(b.b));
  }

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
      const stepS = stepOf(query, fromMs, toMs);
      if (stepS !== undefined) {
        const from = new Date(fromMs).toISOString();
        const to = new Date(toMs).toISOString();
        const rows = await bucketedRows(assetId, fromMs, toMs, stepS, now);
        return {
          asset_id: assetId,
          samples: [],
          step_s: stepS,
          buckets: rows.map((row) => presentBucket(row, stepS)),
          from,
          to,
        };
      }
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

    async top(principal, query) {
      const now = clock.now();
      const since = new Date(now.getTime() - overviewWindowMinutes * 60 * 1000).toISOString();
      const rows = await latestNamedSamplesSince(db, deps.dialect, since, visibleAssetIds(principal));
      // One indexed descent per asset for its latest sample; the ranking itself is a sort in memory.
      const latest = new Map<string, MetricsTopEntry | null>();
      for (const row of rows)
        if (!latest.has(row.asset_id)) latest.set(row.asset_id, topEntry(row, query.metric));
      const ranked = [...latest.values()].filter((e): e is MetricsTopEntry => e !== null);
      // Ties by name then id as plain strings: localeCompare over 10,000 assets costs more than the query.
      ranked.sort((a, b) => b.value - a.value || byText(a.name, b.name) || byText(a.asset_id, b.asset_id));
      return {
        metric: query.metric,
        window_minutes: overviewWindowMinutes,
        assets_reporting: latest.size,
        generated_at: now.toISOString(),
        assets: ranked.slice(0, query.limit ?? 10),
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
