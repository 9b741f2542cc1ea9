/**
 * Issue 28: desktop sessions and recordings name their owner as terminals do (`owner_type`, `owner_id`),
 * the console user for a console session and the API key for a key. Before, a desktop opened with a key
 * belonged to the user who made the key, so every other key of that user reached it.
 *
 * Rows stored before carry one `owner`: a user id (opened from the console, or with any key of that user:
 * which one cannot be told) or a key id (a key made by no user). Ids say what they are (`key_`, `usr_`): a key
 * id becomes an `api_key` owner, anything else a `session` owner. So a user's rows stay that user's console's
 * (and admins'); that user's keys, made when the user was an admin, lose what nothing tells apart from the
 * console's, which fails closed. `unknown` (written for a caller with neither) names no user: admins only.
 */
import { sql, type Kysely } from 'kysely';
import type { Migration } from 'kysely/migration';

const tables = ['desktop_recordings', 'desktop_sessions'] as const;

/* eslint-disable @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists */
export const desktopOwnerTypeMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.dropIndex('desktop_recordings_owner_idx').execute();
    for (const table of tables) {
      await db.schema.alterTable(table).renameColumn('owner', 'owner_id').execute();
      await db.schema
        .alterTable(table)
        .addColumn('owner_type', 'text', (c) => c.notNull().defaultTo('session'))
        .execute();
      await db
        .updateTable(table)
        .set({ owner_type: 'api_key' })
        .where(sql`substr(owner_id, 1, 4)`, '=', 'key_')
        .execute();
    }
    await db.schema
      .createIndex('desktop_recordings_owner_idx')
      .on('desktop_recordings')
      .columns(['owner_type', 'owner_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropIndex('desktop_recordings_owner_idx').execute();
    for (const table of tables) {
      await db.schema.alterTable(table).dropColumn('owner_type').execute();
      await db.schema.alterTable(table).renameColumn('owner_id', 'owner').execute();
    }
    await db.schema
      .createIndex('desktop_recordings_owner_idx')
      .on('desktop_recordings')
      .column('owner')
      .execute();
  },
};
/* eslint-enable @typescript-eslint/no-explicit-any */
