import { sql } from 'kysely';
import type { Executor, TerminalBookmarksTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';
import type { Owner } from '../../access/session-access.js';

export type BookmarkRow = TerminalBookmarksTable;

/** An owner's bookmarks on the assets it may see (null: every asset), by name then directory. */
export async function listBookmarks(
  db: Executor,
  owner: Owner,
  visible: readonly string[] | null,
  window: Window,
): Promise<{ rows: BookmarkRow[]; total: number }> {
  let query = db
    .selectFrom('terminal_bookmarks')
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id);
  if (visible !== null)
    query = visible.length === 0 ? query.where(sql<boolean>`1 = 0`) : query.where('asset_id', 'in', visible);
  return listPage(query.selectAll().orderBy('name').orderBy('directory').orderBy('id'), window);
}

export async function findBookmark(db: Executor, id: string): Promise<BookmarkRow | undefined> {
  return db.selectFrom('terminal_bookmarks').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function countOwnedBookmarks(db: Executor, owner: Owner): Promise<number> {
  const row = await db
    .selectFrom('terminal_bookmarks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertBookmark(db: Executor, row: BookmarkRow): Promise<void> {
  await db.insertInto('terminal_bookmarks').values(row).execute();
}

export async function updateBookmark(
  db: Executor,
  id: string,
  changes: Partial<Omit<BookmarkRow, 'id'>>,
): Promise<void> {
  await db.updateTable('terminal_bookmarks').set(changes).where('id', '=', id).execute();
}

export async function deleteBookmark(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('terminal_bookmarks').where('id', '=', id).execute();
}

export async function deleteBookmarksOfAsset(db: Executor, assetId: string): Promise<void> {
  await db.deleteFrom('terminal_bookmarks').where('asset_id', '=', assetId).execute();
}

export async function deleteOwnedBookmarks(db: Executor, owner: Owner): Promise<void> {
  await db
    .deleteFrom('terminal_bookmarks')
    .where('owner_type', '=', owner.owner_type)
    .where('owner_id', '=', owner.owner_id)
    .execute();
}

/** The bookmarks of any of these owners go; answers how many. */
export async function deleteBookmarksOfAny(db: Executor, owners: readonly Owner[]): Promise<number> {
  if (owners.length === 0) return 0;
  const result = await db
    .deleteFrom('terminal_bookmarks')
    .where((eb) =>
      eb.or(
        owners.map((o) => eb.and([eb('owner_type', '=', o.owner_type), eb('owner_id', '=', o.owner_id)])),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
