import type { Executor, AssetFiltersTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';
import type { Owner } from '../../access/session-access.js';

export type AssetFilterRow = AssetFiltersTable;

/** An owner's saved filters, by name. */
export async function listAssetFilters(
  db: Executor,
  owner: Owner,
  window: Window,
): Promise<{ rows: AssetFilterRow[]; total: number }> {
  const query = db
    .selectFrom('asset_filters')
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id);
  return listPage(query.selectAll().orderBy('name').orderBy('id'), window);
}

export async function findAssetFilter(db: Executor, id: string): Promise<AssetFilterRow | undefined> {
  return db.selectFrom('asset_filters').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The owner's filter of this name, if any (names are unique per owner: they are what tells them apart). */
export async function findOwnedByName(
  db: Executor,
  owner: Owner,
  name: string,
): Promise<AssetFilterRow | undefined> {
  return db
    .selectFrom('asset_filters')
    .selectAll()
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .where('name', '=', name)
    .executeTakeFirst();
}

export async function countOwnedAssetFilters(db: Executor, owner: Owner): Promise<number> {
  const row = await db
    .selectFrom('asset_filters')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertAssetFilter(db: Executor, row: AssetFilterRow): Promise<void> {
  await db.insertInto('asset_filters').values(row).execute();
}

export async function updateAssetFilter(
  db: Executor,
  id: string,
  changes: Partial<Omit<AssetFilterRow, 'id'>>,
): Promise<void> {
  await db.updateTable('asset_filters').set(changes).where('id', '=', id).execute();
}

export async function deleteAssetFilter(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('asset_filters').where('id', '=', id).execute();
}

/** The filters of any of these owners go; answers how many. */
export async function deleteAssetFiltersOfAny(db: Executor, owners: readonly Owner[]): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .deleteFrom('asset_filters')
    .where((eb) =>
      eb.or(
        owners.map((o) => eb.and([eb('owner_type', '=', o.owner_type), eb('owner_id', '=', o.owner_id)])),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
