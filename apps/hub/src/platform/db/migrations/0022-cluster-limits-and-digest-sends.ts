/**
 * Issue 19: the last per-process limit and the digests' at-most-once send become the cluster's (decision 0047).
 *
 * - `two_factor_failures`: wrong second-factor codes per user, in at most 10 slots (the limit) per user. A slot
 *   is taken by a conditional upsert (free when `expires_at` passed), so processes cannot together take more.
 * - `notification_digest_sends`: a digest window taken for sending, under a lease (`claimed_by`,
 *   `lease_until`) until it is sent; a window whose lease expired unsent is taken again by any process.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const clusterLimitsAndDigestSendsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('two_factor_failures')
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('slot', 'integer', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('claim', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('two_factor_failures_pk', ['user_id', 'slot'])
      .execute();
    await db.schema
      .createIndex('two_factor_failures_expires_idx')
      .on('two_factor_failures')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('notification_digest_sends')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('items', 'text', (c) => c.notNull())
      .addColumn('more', 'integer', (c) => c.notNull())
      .addColumn('claimed_by', 'text', (c) => c.notNull())
      .addColumn('lease_until', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('notification_digest_sends_lease_idx')
      .on('notification_digest_sends')
      .column('lease_until')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('notification_digest_sends').execute();
    await db.schema.dropTable('two_factor_failures').execute();
  },
};
