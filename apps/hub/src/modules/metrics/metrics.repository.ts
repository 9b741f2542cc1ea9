import { sql } from 'kysely';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Executor, MetricSamplesTable } from '../../platform/db/schema.js';

export type MetricRow = MetricSamplesTable;

/** The figures a bucket aggregates (min, max, avg of each). */
export const bucketedColumns = [
  'cpu_percent',
  'memory_used_bytes',
  'memory_total_bytes',
  'disk_used_bytes',
  'disk_total_bytes',
  'load1',
  'net_rx_bytes',
  'net_tx_bytes',
] as const satisfies readonly (keyof MetricRow)[];

/** Column order of a flattened sample: the store buffers samples as flat value arrays in this order. */
export const metricColumns = [
  'asset_id',
  'ts',
  ...bucketedColumns,
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

type BucketedColumn = (typeof bucketedColumns)[number];

/** One bucket as the database answers it: `b` the bucket's number (epoch seconds / step), numbers as text on PostgreSQL. */
export type BucketRow = { b: number | string; n: number | string } & Record<
  `${'min' | 'max' | 'avg'}_${BucketedColumn}`,
  number | string
>;

/**
 * One asset's samples in a range, aggregated per step of `stepS` seconds in SQL (GROUP BY floor(epoch / step),
 * through the (asset_id, ts) index for the range): one row per step that holds samples, oldest first. `ts` is
 * text (ISO 8601, UTC), read as epoch seconds by each dialect's own date functions.
 */
export async function bucketMetricSamples(
  db: Executor,
  dialect: DatabaseDialect,
  assetId: string,
  range: { from: string; to: string; stepS: number },
): Promise<BucketRow[]> {
  const step = sql.lit(range.stepS);
  const bucket =
    dialect === 'sqlite'
      ? sql`cast(strftime('%s', ts) as integer) / ${step}`
      : sql`floor(extract(epoch from ts::timestamptz) / ${step})::bigint`;
  const aggregates = bucketedColumns.flatMap((c) =>
    (['min', 'max', 'avg'] as const).map((f) => sql`${sql.raw(f)}(${sql.ref(c)}) as ${sql.ref(`${f}_${c}`)}`),
  );
  const result = await sql<BucketRow>`select ${bucket} as b, count(*) as n, ${sql.join(aggregates)}
    from metric_samples where asset_id = ${assetId} and ts >= ${range.from} and ts <= ${range.to}
    group by 1 order by 1`.execute(db);
  return result.rows;
}

/** Width of a rollup bucket in seconds (migration 0037): every round step from 5 minutes up is a multiple. */
export const rollupWidthS = 300;

/** A sample's time in whole epoch seconds, by each dialect's own date functions (as bucketMetricSamples reads it). */
function epochSeconds(dialect: DatabaseDialect) {
  return dialect === 'sqlite'
    ? sql`cast(strftime('%s', ts) as integer)`
    : sql`floor(extract(epoch from ts::timestamptz))::bigint`;
}

/**
 * Writes the 5-minute rollups of these assets' samples stamped in [from, to) (to null: no end) from the samples
 * themselves, replacing the rows of the same buckets: one INSERT … SELECT … GROUP BY, each bucket computed
 * whole from what the table holds, so running it again for the same range changes nothing. Callers pass
 * ranges that start and end on bucket boundaries, so a bucket is never computed from part of its samples.
 */
export async function rollupMetricSamples(
  db: Executor,
  dialect: DatabaseDialect,
  assetIds: readonly string[],
  range: { from: string; to: string | null },
): Promise<void> {
  if (assetIds.length === 0) return;
  const width = sql.lit(rollupWidthS);
  // SQLite's sum() of integers fails past 2^63; total() is the same sum as a float, as the column stores it.
  const sum = dialect === 'sqlite' ? 'total' : 'sum';
  const figures = bucketedColumns.flatMap((c) => [`min_${c}`, `max_${c}`, `sum_${c}`]);
  const aggregates = bucketedColumns.flatMap((c) => [
    sql`min(${sql.ref(c)})`,
    sql`max(${sql.ref(c)})`,
    dialect === 'sqlite' ? sql`${sql.raw(sum)}(${sql.ref(c)})` : sql`${sql.raw(sum)}(${sql.ref(c)})::float8`,
  ]);
  const until = range.to === null ? sql`` : sql` and ts < ${range.to}`;
  await sql`insert into metric_rollups (asset_id, bucket_s, n, ${sql.join(figures.map((f) => sql.ref(f)))})
    select asset_id, ${epochSeconds(dialect)} / ${width} * ${width}, count(*), ${sql.join(aggregates)}
    from metric_samples where asset_id in (${sql.join(assetIds)}) and ts >= ${range.from}${until}
    group by 1, 2
    on conflict (asset_id, bucket_s) do update set n = excluded.n, ${sql.join(
      figures.map((f) => sql`${sql.ref(f)} = excluded.${sql.ref(f)}`),
    )}`.execute(db);
}

/**
 * One asset's rollups with bucket_s in [fromS, toS], merged per step of `stepS` seconds (a multiple of the
 * rollup width): the same rows as bucketMetricSamples over the samples of those buckets — min of the minima,
 * max of the maxima, the mean as the sum of the sums over the sum of the counts.
 */
export async function bucketMetricRollups(
  db: Executor,
  dialect: DatabaseDialect,
  assetId: string,
  range: { fromS: number; toS: number; stepS: number },
): Promise<BucketRow[]> {
  const count = dialect === 'sqlite' ? sql`sum(n)` : sql`sum(n)::float8`;
  const aggregates = bucketedColumns.flatMap((c) => [
    sql`min(${sql.ref(`min_${c}`)}) as ${sql.ref(`min_${c}`)}`,
    sql`max(${sql.ref(`max_${c}`)}) as ${sql.ref(`max_${c}`)}`,
    sql`sum(${sql.ref(`sum_${c}`)}) / ${count} as ${sql.ref(`avg_${c}`)}`,
  ]);
  const result =
    await sql<BucketRow>`select bucket_s / ${sql.lit(range.stepS)} as b, sum(n) as n, ${sql.join(aggregates)}
    from metric_rollups where asset_id = ${assetId} and bucket_s >= ${range.fromS} and bucket_s <= ${range.toS}
    group by 1 order by 1`.execute(db);
  return result.rows;
}

/** Whether the asset has any rollup: none while its samples stored before migration 0037 are not rolled up. */
export async function hasMetricRollups(db: Executor, assetId: string): Promise<boolean> {
  const row = await db
    .selectFrom('metric_rollups')
    .select('bucket_s')
    .where('asset_id', '=', assetId)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** The start (epoch seconds) of the asset's newest rollup, or null. */
export async function newestMetricRollup(db: Executor, assetId: string): Promise<number | null> {
  const row = await db
    .selectFrom('metric_rollups')
    .select('bucket_s')
    .where('asset_id', '=', assetId)
    .orderBy('bucket_s', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row ? Number(row.bucket_s) : null;
}

/** Deletes the asset's rollups that start before `beforeS` (all of them when undefined). */
export async function deleteMetricRollups(db: Executor, assetId: string, beforeS?: number): Promise<void> {
  let query = db.deleteFrom('metric_rollups').where('asset_id', '=', assetId);
  if (beforeS !== undefined) query = query.where('bucket_s', '<', beforeS);
  await query.execute();
}

/** The samples at or after `since` of the given assets, through the (asset_id, ts) index. */
export async function samplesSince(
  db: Executor,
  assetIds: readonly string[],
  since: string,
): Promise<MetricRow[]> {
  const rows: MetricRow[] = [];
  for (let i = 0; i < assetIds.length; i += 500) {
    const chunk = assetIds.slice(i, i + 500);
    rows.push(
      ...(await db
        .selectFrom('metric_samples')
        .selectAll()
        .where('asset_id', 'in', chunk)
        .where('ts', '>=', since)
        .execute()),
    );
  }
  return rows;
}

/**
 * The latest sample at or after `since` of each existing asset (among `visible`; null means all). Asset by
 * asset through the (asset_id, ts) index — one short descent per asset, whatever the table holds — since there
 * is no index on ts alone (migration 0004). Two samples of an asset at the same latest ts both come back.
 */
export async function latestSamplesSince(
  db: Executor,
  since: string,
  visible: readonly string[] | null,
): Promise<MetricRow[]> {
  if (visible !== null && visible.length === 0) return [];
  return latestSamplesQuery(db, since, visible).selectAll('m').execute();
}

/**
 * The same, each with its asset's name (the fleet's top-N, which names what it ranks). On PostgreSQL a LATERAL
 * join takes each asset's newest sample in the window with one descent of the (asset_id, ts) index, where the
 * `= (select max…)` form may be planned as a hash join over the whole table; SQLite loops that way already.
 */
export async function latestNamedSamplesSince(
  db: Executor,
  dialect: DatabaseDialect,
  since: string,
  visible: readonly string[] | null,
): Promise<(MetricRow & { name: string })[]> {
  if (visible !== null && visible.length === 0) return [];
  if (dialect === 'sqlite') {
    return latestSamplesQuery(db, since, visible).selectAll('m').select('a.name').execute();
  }
  let query = db
    .selectFrom('assets as a')
    .innerJoinLateral(
      (eb) =>
        eb
          .selectFrom('metric_samples as l')
          .selectAll('l')
          .whereRef('l.asset_id', '=', 'a.id')
          .where('l.ts', '>=', since)
          .orderBy('l.ts', 'desc')
          .limit(1)
          .as('m'),
      (join) => join.onTrue(),
    )
    .selectAll('m')
    .select('a.name');
  if (visible !== null) query = query.where('a.id', 'in', visible);
  return query.execute();
}

function latestSamplesQuery(db: Executor, since: string, visible: readonly string[] | null) {
  let query = db
    .selectFrom('assets as a')
    // CROSS JOIN: SQLite then always loops over assets outside, even on a table never analyzed (PostgreSQL
    // plans it as the plain join it is).
    .crossJoin('metric_samples as m')
    .whereRef('m.asset_id', '=', 'a.id')
    .where('m.ts', '=', (eb) =>
      eb
        .selectFrom('metric_samples as l')
        .select((l) => l.fn.max('l.ts').as('max_ts'))
        .whereRef('l.asset_id', '=', 'a.id')
        .where('l.ts', '>=', since),
    );
  if (visible !== null) query = query.where('a.id', 'in', visible);
  return query;
}

/**
 * Retention walks the table asset by asset through the (asset_id, ts) index: the first asset after `after`
 * (in the index's order; null: the first of all) that has samples, with its oldest sample's ts.
 */
export async function nextAssetWithMetrics(
  db: Executor,
  after: string | null,
): Promise<{ assetId: string; oldestTs: string } | null> {
  let query = db.selectFrom('metric_samples').select(['asset_id', 'ts']).orderBy('asset_id').orderBy('ts');
  if (after !== null) query = query.where('asset_id', '>', after);
  const row = await query.limit(1).executeTakeFirst();
  return row ? { assetId: row.asset_id, oldestTs: row.ts } : null;
}

/** For tests and the status page: how many samples are stored. */
export async function countMetricSamples(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('metric_samples')
    .select(sql<string | number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Deletes at most `rows` samples of one asset (those stamped before `before` when given), whatever their
 * timestamps (an asset's history may hold hundreds of thousands stamped alike), picked through the
 * (asset_id, ts) index by row address: rowid on SQLite, ctid on PostgreSQL (`= any(array(…))` is a TID scan
 * there, where `in (select …)` would join against the whole table). Returns how many went.
 */
export async function deleteAssetMetricsBatch(
  db: Executor,
  dialect: DatabaseDialect,
  assetId: string,
  rows: number,
  before?: string,
): Promise<number> {
  const expired = before === undefined ? sql`` : sql` and ts < ${before}`;
  const result =
    dialect === 'sqlite'
      ? await sql`delete from metric_samples where rowid in (select rowid from metric_samples where asset_id = ${assetId}${expired} limit ${rows})`.execute(
          db,
        )
      : await sql`delete from metric_samples where ctid = any(array(select ctid from metric_samples where asset_id = ${assetId}${expired} limit ${rows}))`.execute(
          db,
        );
  return Number(result.numAffectedRows ?? 0);
}

/** A place in the stored samples, in (ts, asset_id) order: what a reader in that order has passed. */
export interface MetricPosition {
  ts: string;
  assetId: string;
}

/** The samples after `after` (all from the start when null) and stamped at or before `until`, in that order. */
function samplesAfterQuery(db: Executor, after: MetricPosition | null, until: string) {
  let query = db.selectFrom('metric_samples').where('ts', '<=', until);
  if (after !== null) {
    query = query.where((eb) =>
      eb.or([eb('ts', '>', after.ts), eb.and([eb('ts', '=', after.ts), eb('asset_id', '>', after.assetId)])]),
    );
  }
  return query;
}

export async function metricSamplesAfter(
  db: Executor,
  after: MetricPosition | null,
  until: string,
  limit: number,
): Promise<MetricRow[]> {
  return samplesAfterQuery(db, after, until)
    .selectAll()
    .orderBy('ts')
    .orderBy('asset_id')
    .limit(limit)
    .execute();
}

/** How many samples lie after `after` up to `until`, counted up to `cap` (the count stops there). */
export async function countMetricSamplesAfter(
  db: Executor,
  after: MetricPosition | null,
  until: string,
  cap: number,
): Promise<number> {
  const row = await db
    .selectFrom(samplesAfterQuery(db, after, until).select('ts').limit(cap).as('waiting'))
    .select(sql<string | number>`count(*)`.as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The position of the sample `offset` places after `after` (0: the first one), or undefined. */
export async function metricPositionAt(
  db: Executor,
  after: MetricPosition | null,
  until: string,
  offset: number,
): Promise<MetricPosition | undefined> {
  const row = await samplesAfterQuery(db, after, until)
    .select(['ts', 'asset_id'])
    .orderBy('ts')
    .orderBy('asset_id')
    .limit(1)
    .offset(offset)
    .executeTakeFirst();
  return row ? { ts: row.ts, assetId: row.asset_id } : undefined;
}
