/**
 * Desktop sessions (issue 16, part 2): an asset's VNC password, sealed with the secret box; desktop recordings
 * (decision 0030), each a file in the data directory named by its id, served by id only.
 */
import type { Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const desktopCredentialsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('desktop_credentials')
      .addColumn('asset_id', 'text', (c) => c.primaryKey())
      .addColumn('password_sealed', 'text', (c) => c.notNull())
      .addColumn('username_sealed', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('desktop_recordings')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('session_id', 'text', (c) => c.notNull())
      .addColumn('asset_id', 'text', (c) => c.notNull())
      .addColumn('owner', 'text', (c) => c.notNull())
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('ended_at', 'text')
      .addColumn('bytes', 'integer', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('desktop_recordings_owner_idx')
      .on('desktop_recordings')
      .column('owner')
      .execute();
  },
};
