import type { DesktopCredentialsTable, Executor } from '../../platform/db/schema.js';

export type DesktopCredentialsRow = DesktopCredentialsTable;

export async function findDesktopCredentials(
  db: Executor,
  assetId: string,
): Promise<DesktopCredentialsRow | undefined> {
  return db.selectFrom('desktop_credentials').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
}

export async function saveDesktopCredentials(db: Executor, row: DesktopCredentialsRow): Promise<void> {
  await db
    .insertInto('desktop_credentials')
    .values(row)
    .onConflict((oc) =>
      oc.column('asset_id').doUpdateSet({
        password_sealed: row.password_sealed,
        username_sealed: row.username_sealed,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Resolves with whether a row was there. */
export async function deleteDesktopCredentials(db: Executor, assetId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('desktop_credentials')
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}
