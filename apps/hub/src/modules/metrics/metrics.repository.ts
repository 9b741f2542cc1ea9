import { sql } from 'kysely';
import type { Executor, MetricSamplesTable } from '../../platform/db/schema.js';

export type MetricRow = MetricSamplesTable;

/** Column order of a flattened sample: the store buffers samples as flat value arrays in this order. */
export const metricColumns = [
  'asset_id',
  'ts',
  'cpu_percent',
  'memory_used_bytes',
  'memory_total_bytes',
  'disk_used_bytes',
  'disk_total_bytes',
  'load1',
  'net_rx_bytes',
  'net_tx_bytes',
] as const satisfies readonly (keyof MetricRow)[];

export const maxRowsPerInsert = 500;

/**
 * The SQL of a multi-row INSERT of `rows` samples, compiled by the dialect's own compiler (so placeholders are
 * `?` on SQLite and `$n` on PostgreSQL). The store prepares each size once on SQLite and reuses it.
 *
 * `orFail` (SQLite only) makes it `INSERT OR FAIL`: SQLite then keeps no statement journal (a temporary file
 * of every page the statement changes, there only to undo half a statement), about a third of the cost of a
 * 500-row insert. A failing statement still throws; the caller rolls back the whole transaction.
 */
export function compileMetricInsert(db: Executor, rows: number, options: { orFail?: boolean } = {}): string {
  const template = Object.fromEntries(metricColumns.map((c) => [c, 0])) as unknown as MetricRow;
  const insert = db.insertInto('metric_samples').values(Array.from({ length: rows }, () => template));
  return (options.orFail ? insert.orFail() : insert).compile().sql;
}

/** The columns' PostgreSQL types, in metricColumns order (as the migration made them). */
const pgColumnTypes: Record<(typeof metricColumns)[number], string> = {
  asset_id: 'text',
  ts: 'text',
  cpu_percent: 'real',
  memory_used_bytes: 'bigint',
  memory_total_bytes: 'bigint',
  disk_used_bytes: 'bigint',
  disk_total_bytes: 'bigint',
  load1: 'real',
  net_rx_bytes: 'bigint',
  net_tx_bytes: 'bigint',
};

/**
 * PostgreSQL only: inserts samples given column by column (one array per metricColumns entry, all the same
 * length) in one `INSERT … SELECT FROM unnest(…)`. Ten parameters whatever the row count: the server parses
 * and plans it in no time, where a 500-row VALUES list has 5,000 parameters and is planned anew each time.
 */
export async function insertMetricColumns(db: Executor, columns: readonly unknown[][]): Promise<void> {
  const arrays = metricColumns.map(
    (column, i) => sql`${sql.val(columns[i] ?? [])}::${sql.raw(pgColumnTypes[column])}[]`,
  );
  await sql`insert into metric_samples (${sql.join(metricColumns.map((c) => sql.ref(c)))}) select * from unnest(${sql.join(arrays)})`.execute(
    db,
  );
}

export async function listMetricSamples(
  db: Executor,
  assetId: string,
  range: { from: string; to: string; limit: number },
): Promise<MetricRow[]> {
  return db
    .selectFrom('metric_samples')
    .selectAll()
    .where('asset_id', '=', assetId)
    .where('ts', '>=', range.from)
    .where('ts', '<=', range.to)
    .orderBy('ts')
    .limit(range.limit)
    .execute();
}

/** The latest sample at or after `since` of each existing asset (among `visible`; null means all). */
export async function latestSamplesSince(
  db: Executor,
  since: string,
  visible: readonly string[] | null,
): Promise<MetricRow[]> {
  if (visible !== null && visible.length === 0) return [];
  let latest = db
    .selectFrom('metric_samples')
    .select(['asset_id', (eb) => eb.fn.max('ts').as('max_ts')])
    .where('ts', '>=', since)
    .groupBy('asset_id');
  if (visible !== null) latest = latest.where('asset_id', 'in', visible);
  return db
    .selectFrom('metric_samples as m')
    .innerJoin(latest.as('l'), (join) =>
      join.onRef('m.asset_id', '=', 'l.asset_id').onRef('m.ts', '=', 'l.max_ts'),
    )
    .innerJoin('assets as a', 'a.id', 'm.asset_id')
    .selectAll('m')
    .execute();
}

export async function oldestMetricTs(db: Executor): Promise<string | null> {
  const row = await db
    .selectFrom('metric_samples')
    .select((eb) => eb.fn.min('ts').as('ts'))
    .executeTakeFirst();
  return row?.ts ?? null;
}

export async function deleteMetricsBefore(db: Executor, before: string): Promise<number> {
  const result = await db.deleteFrom('metric_samples').where('ts', '<', before).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** For tests and the status page: how many samples are stored. */
export async function countMetricSamples(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('metric_samples')
    .select(sql<string | number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
