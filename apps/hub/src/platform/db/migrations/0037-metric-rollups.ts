/**
 * Issue 34 (decision 0097): 5-minute rollups of metric samples, per asset — sample count and, for each figure,
 * min, max and sum — so that a bucketed history of a long range reads a row per 5 minutes instead of every
 * sample. Keyed (asset_id, bucket_s): bucket_s is the bucket's start in epoch seconds, a multiple of 300. The
 * metrics module writes them from the samples; the hub fills them for samples stored before this migration
 * in the background after it starts (metrics-rollups.ts), so the migration itself stays instant.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

const figures = [
  ['cpu_percent', 'real'],
  ['memory_used_bytes', 'bigint'],
  ['memory_total_bytes', 'bigint'],
  ['disk_used_bytes', 'bigint'],
  ['disk_total_bytes', 'bigint'],
  ['load1', 'real'],
  ['net_rx_bytes', 'bigint'],
  ['net_tx_bytes', 'bigint'],
] as const;

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const metricRollupsMigration: Migration = {
  async up(db: Kysely<any>) {
    let table = db.schema
      .createTable('metric_rollups')
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('bucket_s', 'bigint', (c) => c.notNull())
      .addColumn('n', 'bigint', (c) => c.notNull());
    for (const [figure, type] of figures) {
      table = table
        .addColumn(`min_${figure}`, type, (c) => c.notNull())
        .addColumn(`max_${figure}`, type, (c) => c.notNull())
        // A float: a sum of byte counts may pass bigint's range; the mean it gives is a float anyway.
        .addColumn(`sum_${figure}`, 'double precision', (c) => c.notNull());
    }
    await table.addPrimaryKeyConstraint('metric_rollups_pk', ['asset_id', 'bucket_s']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('metric_rollups').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
