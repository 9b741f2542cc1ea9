/**
 * Issue 33, maintenance windows (decision 0078): the windows (targets as JSON lists: a hub holds at most a few
 * hundred, read whole), each occurrence announced once (`maintenance_occurrences`: its row inserted once by
 * whichever process sees it start, its `ended_at` set once), the window that suppressed an alert, and the
 * schedules that run only inside a window.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const maintenanceWindowsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('maintenance_windows')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('asset_ids', 'text', (c) => c.notNull())
      .addColumn('group_ids', 'text', (c) => c.notNull())
      .addColumn('starts_at', 'text')
      .addColumn('ends_at', 'text')
      .addColumn('cron', 'text')
      .addColumn('duration_minutes', 'integer')
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('maintenance_occurrences')
      .addColumn('window_id', 'text', (c) => c.notNull())
      .addColumn('starts_at', 'text', (c) => c.notNull())
      .addColumn('ends_at', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('asset_ids', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addPrimaryKeyConstraint('maintenance_occurrences_pk', ['window_id', 'starts_at'])
      .execute();
    await db.schema
      .createIndex('maintenance_occurrences_open_idx')
      .on('maintenance_occurrences')
      .column('ended_at')
      .execute();
    await db.schema.alterTable('alerts').addColumn('suppressed_by', 'text').execute();
    await db.schema
      .alterTable('schedules')
      .addColumn('only_in_window', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('schedules').dropColumn('only_in_window').execute();
    await db.schema.alterTable('alerts').dropColumn('suppressed_by').execute();
    await db.schema.dropTable('maintenance_occurrences').execute();
    await db.schema.dropTable('maintenance_windows').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
