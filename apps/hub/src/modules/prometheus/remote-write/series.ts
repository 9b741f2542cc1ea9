/**
 * Stored metric samples as remote-write series: one series per asset and metric, named `svc_<column>`,
 * labelled with the asset's id and (when it still exists) its name. Pure.
 */
import type { RemoteSeries } from './write-request.js';

/** A stored sample as the metrics module hands it over (PostgreSQL may give bigints as strings). */
export interface StoredSample {
  asset_id: string;
  ts: string;
  cpu_percent: number | string;
  memory_used_bytes: number | string;
  memory_total_bytes: number | string;
  disk_used_bytes: number | string;
  disk_total_bytes: number | string;
  load1: number | string;
  net_rx_bytes: number | string;
  net_tx_bytes: number | string;
}

const exportedColumns = [
  'cpu_percent',
  'memory_used_bytes',
  'memory_total_bytes',
  'disk_used_bytes',
  'disk_total_bytes',
  'load1',
  'net_rx_bytes',
  'net_tx_bytes',
] as const satisfies readonly (keyof StoredSample)[];

/** The Prometheus name of a stored column. */
function metricNameOf(column: (typeof exportedColumns)[number]): string {
  return `svc_${column}`;
}

/** The series of `rows` (in timestamp order), a series' samples in that order too. */
export function seriesOf(rows: readonly StoredSample[], names: ReadonlyMap<string, string>): RemoteSeries[] {
  const byKey = new Map<
    string,
    { labels: RemoteSeries['labels']; samples: RemoteSeries['samples'][number][] }
  >();
  for (const row of rows) {
    const timestampMs = Date.parse(row.ts);
    if (Number.isNaN(timestampMs)) continue;
    const name = names.get(row.asset_id);
    for (const column of exportedColumns) {
      const value = Number(row[column]);
      if (!Number.isFinite(value)) continue;
      const key = `${row.asset_id}\u0000${column}`;
      let series = byKey.get(key);
      if (series === undefined) {
        // Sorted by label name: `__name__` < `asset_id` < `name`.
        const labels = [
          { name: '__name__', value: metricNameOf(column) },
          { name: 'asset_id', value: row.asset_id },
          ...(name === undefined ? [] : [{ name: 'name', value: name }]),
        ];
        series = { labels, samples: [] };
        byKey.set(key, series);
      }
      series.samples.push({ value, timestampMs });
    }
  }
  return [...byKey.values()];
}
