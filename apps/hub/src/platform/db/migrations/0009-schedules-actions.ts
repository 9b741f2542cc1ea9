/**
 * Saved actions, schedules and their run history (issue 14, items 5 and 6). A schedule's `next_run_at` is the
 * tick it waits for: claiming a tick moves it on in one UPDATE guarded by the old value, so a tick is claimed
 * once, also across a restart.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const schedulesAndActions: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('saved_actions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('command', 'text', (c) => c.notNull())
      .addColumn('timeout_s', 'integer', (c) => c.notNull())
      .addColumn('targets', 'text')
      .addColumn('group_id', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('schedules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('cron', 'text', (c) => c.notNull())
      .addColumn('timezone', 'text', (c) => c.notNull())
      .addColumn('command', 'text')
      .addColumn('action_id', 'text')
      .addColumn('timeout_s', 'integer', (c) => c.notNull())
      .addColumn('targets', 'text')
      .addColumn('group_id', 'text')
      .addColumn('run_as', 'text', (c) => c.notNull())
      .addColumn('next_run_at', 'text')
      .addColumn('last_run_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('schedules_next_run_idx').on('schedules').column('next_run_at').execute();
    await db.schema
      .createTable('schedule_runs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('schedule_id', 'text', (c) => c.notNull())
      .addColumn('tick_at', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('ticks', 'integer', (c) => c.notNull())
      .addColumn('started_at', 'text')
      .addColumn('finished_at', 'text')
      .addColumn('summary', 'text')
      .addColumn('results', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .execute();
    // One record per tick: a second claim of the same tick could not be stored even if it were attempted.
    await db.schema
      .createIndex('schedule_runs_tick_idx')
      .on('schedule_runs')
      .columns(['schedule_id', 'tick_at'])
      .unique()
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('schedule_runs').execute();
    await db.schema.dropTable('schedules').execute();
    await db.schema.dropTable('saved_actions').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
