/**
 * The stored samples read in the order they are stamped, for a reader that sends them on (Prometheus remote
 * write, decision 0075): it keeps its own position and asks for what lies after it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import {
  countMetricSamplesAfter,
  metricPositionAt,
  metricSamplesAfter,
  type MetricPosition,
  type MetricRow,
} from './metrics.repository.js';

export type { MetricPosition } from './metrics.repository.js';
type ExportedMetricRow = MetricRow;

export interface MetricsExportService {
  /** Up to `limit` samples after `after`, stamped at or before `until`, in (ts, asset_id) order. */
  after(after: MetricPosition | null, until: string, limit: number): Promise<ExportedMetricRow[]>;
  /** How many there are, counted up to `cap`. */
  countAfter(after: MetricPosition | null, until: string, cap: number): Promise<number>;
  /** The position of the sample `offset` places after `after`. */
  positionAt(
    after: MetricPosition | null,
    until: string,
    offset: number,
  ): Promise<MetricPosition | undefined>;
}

export function createMetricsExportService(deps: { db: Kysely<Database> }): MetricsExportService {
  const { db } = deps;
  return {
    after: (position, until, limit) => metricSamplesAfter(db, position, until, limit),
    countAfter: (position, until, cap) => countMetricSamplesAfter(db, position, until, cap),
    positionAt: (position, until, offset) => metricPositionAt(db, position, until, offset),
  };
}
