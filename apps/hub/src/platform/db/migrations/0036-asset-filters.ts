/**
 * Issue 34 point 3 (decision 0096): saved filters of the assets list, each owned as sessions are: `session`
 * (a user id) or `api_key` (a key id). The criteria are one JSON text (the list's query parameters), read
 * and written whole. Every list reads by owner, hence the index.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const assetFiltersMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('asset_filters')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('criteria', 'text', (c) => c.notNull())
      .addColumn('owner_type', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('asset_filters_owner')
      .on('asset_filters')
      .columns(['owner_type', 'owner_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('asset_filters').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
