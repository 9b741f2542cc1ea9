/**
 * Issue 19: state that lived in one process's memory moves to the database, so that any process behind a
 * load balancer that is not sticky can serve the next step (decision 0044).
 *
 * - `sign_in_challenges`: the second sign-in step's challenges. Only a hash of the token is kept; a claim
 *   (`claim`, `claim_expires_at`) lets one process check a code at a time, and `failures` counts wrong codes
 *   across processes.
 * - `notification_digests` and `notification_digest_items`: one open digest window per target (a channel or a
 *   push subscription) and the items collected in it, flushed once by whichever process claims the window.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const sharedStateMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('sign_in_challenges')
      .addColumn('token_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'text', (c) => c.notNull())
      .addColumn('password_check', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('claim', 'text')
      .addColumn('claim_expires_at', 'text')
      .execute();
    await db.schema
      .createIndex('sign_in_challenges_expires_idx')
      .on('sign_in_challenges')
      .column('expires_at')
      .execute();

    await db.schema
      .createTable('notification_digests')
      .addColumn('target', 'text', (c) => c.primaryKey())
      .addColumn('ends_at', 'text', (c) => c.notNull())
      .addColumn('item_count', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('notification_digests_ends_idx')
      .on('notification_digests')
      .column('ends_at')
      .execute();
    await db.schema
      .createTable('notification_digest_items')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('target', 'text', (c) => c.notNull())
      .addColumn('item', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('notification_digest_items_target_idx')
      .on('notification_digest_items')
      .columns(['target', 'created_at'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('notification_digest_items').execute();
    await db.schema.dropTable('notification_digests').execute();
    await db.schema.dropTable('sign_in_challenges').execute();
  },
};
