import type { DependencyLinksTable, Executor } from '../../platform/db/schema.js';

export type DependencyLinkRow = DependencyLinksTable;

export async function listLinks(db: Executor, limit: number): Promise<DependencyLinkRow[]> {
  return db.selectFrom('dependency_links').selectAll().orderBy('id').limit(limit).execute();
}

export async function findLink(db: Executor, id: string): Promise<DependencyLinkRow | undefined> {
  return db.selectFrom('dependency_links').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findLinkBetween(
  db: Executor,
  from: string,
  to: string,
): Promise<DependencyLinkRow | undefined> {
  return db
    .selectFrom('dependency_links')
    .selectAll()
    .where('from_asset_id', '=', from)
    .where('to_asset_id', '=', to)
    .executeTakeFirst();
}

export async function insertLink(db: Executor, row: DependencyLinkRow): Promise<void> {
  await db.insertInto('dependency_links').values(row).execute();
}

export async function deleteLink(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('dependency_links').where('id', '=', id).execute();
}

/** Links touching assets that are gone (an asset was deleted): removed with it. */
export async function deleteLinksOf(db: Executor, assetId: string): Promise<void> {
  await db
    .deleteFrom('dependency_links')
    .where((eb) => eb.or([eb('from_asset_id', '=', assetId), eb('to_asset_id', '=', assetId)]))
    .execute();
}
