/**
 * Discovery suggestions (issue 15, part 5): what `POST /discovery/run` found, one row per thing found
 * (`key`, unique: the same container, port or host found again updates its row), waiting for a person to
 * accept or dismiss it.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const discoveryMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('discovery_suggestions')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('key', 'text', (c) => c.notNull().unique())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text')
      .addColumn('title', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('first_seen_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addColumn('decided_by', 'text')
      .addColumn('created_asset_id', 'text')
      .execute();
    await db.schema
      .createIndex('discovery_suggestions_status_idx')
      .on('discovery_suggestions')
      .columns(['status', 'id'])
      .execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
