/** Alert rules, the alerts they raise, and incidents grouping an asset's alerts (decision 0017). */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const alertsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('alert_rules')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('threshold_percent', 'double precision')
      .addColumn('duration_minutes', 'integer', (c) => c.notNull())
      // JSON array of asset ids; empty means every asset.
      .addColumn('asset_ids', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('alerts')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('rule_id', 'text', (c) => c.notNull())
      .addColumn('rule_name', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('asset_name', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      // firing, acknowledged or resolved; "silenced" is silenced_until in the future.
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('summary', 'text', (c) => c.notNull())
      .addColumn('value', 'double precision')
      .addColumn('incident_id', 'text')
      .addColumn('fired_at', 'text', (c) => c.notNull())
      .addColumn('acknowledged_at', 'text')
      .addColumn('acknowledged_by', 'text')
      .addColumn('silenced_until', 'text')
      .addColumn('resolved_at', 'text')
      .execute();
    await db.schema.createIndex('alerts_fired_idx').on('alerts').columns(['fired_at', 'id']).execute();
    await db.schema.createIndex('alerts_asset_idx').on('alerts').columns(['asset_id', 'fired_at']).execute();
    await db.schema.createIndex('alerts_rule_state_idx').on('alerts').columns(['rule_id', 'state']).execute();

    await db.schema
      .createTable('incidents')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('severity', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('opened_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('resolved_at', 'text')
      .addColumn('resolved_by', 'text')
      .execute();
    await db.schema
      .createIndex('incidents_asset_state_idx')
      .on('incidents')
      .columns(['asset_id', 'state'])
      .execute();
    await db.schema
      .createIndex('incidents_opened_idx')
      .on('incidents')
      .columns(['opened_at', 'id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('incidents').execute();
    await db.schema.dropTable('alerts').execute();
    await db.schema.dropTable('alert_rules').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
