/**
 * Issue 33, package updates (decision 0081): each asset's last report of available updates (counts for the
 * fleet view, the packages as JSON), update runs (what was asked, when they start, who runs them and on which
 * hub process) and one row per target of a run, written as each result arrives.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const updateRunsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('update_reports')
      .addColumn('asset_id', 'text', (c) => c.primaryKey())
      .addColumn('manager', 'text')
      .addColumn('updates', 'integer')
      .addColumn('security_updates', 'integer')
      .addColumn('truncated', 'integer', (c) => c.notNull())
      .addColumn('reboot_required', 'integer')
      .addColumn('last_patched_at', 'text')
      .addColumn('checked_at', 'text')
      .addColumn('reported_at', 'text')
      .addColumn('error', 'text')
      .addColumn('packages', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('update_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('mode', 'text', (c) => c.notNull())
      .addColumn('selection', 'text', (c) => c.notNull())
      .addColumn('packages', 'text', (c) => c.notNull())
      .addColumn('reboot_if_required', 'integer', (c) => c.notNull())
      .addColumn('refresh', 'integer', (c) => c.notNull())
      .addColumn('concurrency', 'integer', (c) => c.notNull())
      .addColumn('max_failures', 'integer')
      .addColumn('timeout_minutes', 'integer', (c) => c.notNull())
      .addColumn('targets', 'text')
      .addColumn('group_id', 'text')
      .addColumn('start', 'text', (c) => c.notNull())
      .addColumn('scheduled_at', 'text')
      .addColumn('window_id', 'text')
      .addColumn('window_ends_at', 'text')
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('status_reason', 'text')
      .addColumn('run_as', 'text', (c) => c.notNull())
      .addColumn('created_by', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('node_id', 'text')
      .execute();
    await db.schema
      .createIndex('update_runs_status_idx')
      .on('update_runs')
      .columns(['status', 'scheduled_at'])
      .execute();
    await db.schema
      .createTable('update_run_targets')
      .addColumn('run_id', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('position', 'integer', (c) => c.notNull())
      .addColumn('asset_name', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('manager', 'text')
      .addColumn('changes', 'integer', (c) => c.notNull())
      .addColumn('change_list', 'text', (c) => c.notNull())
      .addColumn('changes_truncated', 'integer', (c) => c.notNull())
      .addColumn('exit_code', 'integer')
      .addColumn('timed_out', 'integer', (c) => c.notNull())
      .addColumn('reboot_required', 'integer')
      .addColumn('rebooting', 'integer', (c) => c.notNull())
      .addColumn('output', 'text', (c) => c.notNull())
      .addColumn('output_truncated', 'integer', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('duration_ms', 'integer')
      .addPrimaryKeyConstraint('update_run_targets_pk', ['run_id', 'asset_id'])
      .execute();
    await db.schema
      .createIndex('update_run_targets_asset_idx')
      .on('update_run_targets')
      .column('asset_id')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('update_run_targets').execute();
    await db.schema.dropTable('update_runs').execute();
    await db.schema.dropTable('update_reports').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
