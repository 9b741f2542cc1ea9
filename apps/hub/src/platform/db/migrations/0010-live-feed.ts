/**
 * Issue 14, the rest of the live feed: webhook deliveries still to be made, kept in the database so that a
 * clean restart loses none of them (decision 0019); schedules that can be paused.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const liveFeedMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('webhook_pending')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('webhook_id', 'text', (c) => c.notNull())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('event_type', 'text', (c) => c.notNull())
      .addColumn('ts', 'text', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull())
      .addColumn('next_attempt_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    // Reloaded oldest first at start; removed with their webhook.
    await db.schema
      .createIndex('webhook_pending_created_idx')
      .on('webhook_pending')
      .columns(['created_at', 'id'])
      .execute();
    await db.schema
      .createIndex('webhook_pending_webhook_idx')
      .on('webhook_pending')
      .columns(['webhook_id'])
      .execute();
    // Paused (0) schedules hold no next tick, so the scheduler never finds them due.
    await db.schema
      .alterTable('schedules')
      .addColumn('enabled', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('schedules').dropColumn('enabled').execute();
    await db.schema.dropTable('webhook_pending').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
