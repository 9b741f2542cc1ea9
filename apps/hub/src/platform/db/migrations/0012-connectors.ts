/**
 * Connectors (issue 15, part 2): the connectors table (credentials sealed with the secret box), the columns
 * that tie an asset to the connector that brought it, and the links people declare in the dependency graph
 * (part 6).
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const connectorsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('connectors')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('base_url', 'text', (c) => c.notNull())
      .addColumn('username', 'text')
      .addColumn('credentials_sealed', 'text', (c) => c.notNull())
      .addColumn('tls_mode', 'text', (c) => c.notNull())
      .addColumn('tls_ca', 'text')
      .addColumn('tls_fingerprint', 'text')
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('health', 'text', (c) => c.notNull())
      .addColumn('last_error', 'text')
      .addColumn('last_checked_at', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.alterTable('assets').addColumn('connector_id', 'text').execute();
    await db.schema.alterTable('assets').addColumn('connector_kind', 'text').execute();
    await db.schema.alterTable('assets').addColumn('external_id', 'text').execute();
    // The asset this one lives on (a guest's node, a storage's node), by id; set by the inventory sync.
    await db.schema.alterTable('assets').addColumn('parent_asset_id', 'text').execute();
    // Small JSON of upstream facts the graph uses (a guest's VMID, the VMIDs a backup server holds).
    await db.schema.alterTable('assets').addColumn('connector_facts', 'text').execute();
    await db.schema
      .createIndex('assets_connector_idx')
      .on('assets')
      .columns(['connector_id', 'external_id'])
      .unique()
      .execute();
    await db.schema
      .createTable('dependency_links')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('from_asset_id', 'text', (c) => c.notNull())
      .addColumn('to_asset_id', 'text', (c) => c.notNull())
      .addColumn('label', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('dependency_links_pair_idx')
      .on('dependency_links')
      .columns(['from_asset_id', 'to_asset_id'])
      .unique()
      .execute();
  },
};
