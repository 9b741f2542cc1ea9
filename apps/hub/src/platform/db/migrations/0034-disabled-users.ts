/**
 * Issue 34 (decision 0087): an account an admin disabled keeps its row (its keys, schedules and name in the
 * audit trail stay) and records when; null while it may sign in. No index: every read of it is by user id.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const disabledUsersMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('disabled_at', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('disabled_at').execute();
  },
};
