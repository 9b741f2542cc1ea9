/** Service-down alert rules (decision 0017): the watched systemd unit's name, null for other kinds. */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const alertServiceRulesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('alert_rules').addColumn('service', 'text').execute();
  },
};
