/** Desktop credentials (issue 16, part 2): an asset's VNC password, sealed with the secret box. */
import type { Kysely, Migration } from 'kysely';

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
  },
};
