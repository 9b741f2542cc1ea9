/**
 * Issue 19, part 3: several hub processes on one database (decision 0040). Leases for the loops that must run
 * on one process at a time (`cluster_leases`), a claim on each pending webhook delivery (the process sending
 * it, and until when that claim holds unless renewed), and the node that runs each schedule run (a starting
 * process reports only the runs of nodes that are gone as interrupted, not those of its live peers).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const clusterCoherenceMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('cluster_leases')
      .addColumn('name', 'text', (c) => c.primaryKey())
      .addColumn('holder', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .execute();
    // Null on rows written before this migration: orphaned, taken over by the next process that starts.
    await db.schema.alterTable('webhook_pending').addColumn('claimed_by', 'text').execute();
    await db.schema.alterTable('webhook_pending').addColumn('claim_expires_at', 'text').execute();
    await db.schema.alterTable('schedule_runs').addColumn('node_id', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('schedule_runs').dropColumn('node_id').execute();
    await db.schema.alterTable('webhook_pending').dropColumn('claim_expires_at').execute();
    await db.schema.alterTable('webhook_pending').dropColumn('claimed_by').execute();
    await db.schema.dropTable('cluster_leases').execute();
  },
};
