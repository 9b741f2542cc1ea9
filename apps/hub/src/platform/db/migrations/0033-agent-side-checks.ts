/**
 * Issue 33, service checks run from an agent (decision 0084): the asset whose agent runs a check (null: the
 * hub), and, per result, whether the check ran at all (0: its agent was offline or could not run it; such a
 * result is neither up nor down).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const agentSideChecksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('service_checks').addColumn('run_from_asset_id', 'text').execute();
    await db.schema
      .alterTable('service_check_results')
      .addColumn('ran', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('service_check_results').dropColumn('ran').execute();
    await db.schema.alterTable('service_checks').dropColumn('run_from_asset_id').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
