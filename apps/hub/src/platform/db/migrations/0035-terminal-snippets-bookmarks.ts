/**
 * Issue 34 (decision 0091): terminal snippets (personal or shared) and bookmarks (an asset and a working
 * directory), each owned as sessions are: `session` (a user id) or `api_key` (a key id). Every list reads by
 * owner, so each table has an index on its owner.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const terminalSnippetsBookmarksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('terminal_snippets')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('description', 'text')
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('owner_type', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('terminal_snippets_owner')
      .on('terminal_snippets')
      .columns(['owner_type', 'owner_id'])
      .execute();
    await db.schema
      .createTable('terminal_bookmarks')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text')
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('directory', 'text', (c) => c.notNull())
      .addColumn('owner_type', 'text', (c) => c.notNull())
      .addColumn('owner_id', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('terminal_bookmarks_owner')
      .on('terminal_bookmarks')
      .columns(['owner_type', 'owner_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('terminal_bookmarks').execute();
    await db.schema.dropTable('terminal_snippets').execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
