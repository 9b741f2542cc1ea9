import { sql } from 'kysely';
import type { Executor, GroupsTable } from '../../platform/db/schema.js';
import { likePattern, listPage, type Window } from '../../platform/db/paging.js';

export type GroupRow = GroupsTable;

export interface GroupFilter {
  /** Only groups with at least one of these assets; null means every group. */
  visible: readonly string[] | null;
  text?: string;
}

function filtered(db: Executor, filter: GroupFilter) {
  let query = db.selectFrom('groups');
  if (filter.visible !== null) {
    if (filter.visible.length === 0) return query.where(sql<boolean>`1 = 0`);
    const visible = filter.visible;
    query = query.where((eb) =>
      eb.exists(
        eb
          .selectFrom('group_members')
          .select('group_members.asset_id')
          .whereRef('group_members.group_id', '=', 'groups.id')
          .where('group_members.asset_id', 'in', visible),
      ),
    );
  }
  if (filter.text !== undefined) {
    const pattern = likePattern(filter.text);
    query = query.where(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`);
  }
  return query;
}

export async function listGroups(
  db: Executor,
  filter: GroupFilter,
  window: Window,
): Promise<{ rows: GroupRow[]; total: number }> {
  return listPage(filtered(db, filter).selectAll().orderBy('name').orderBy('id'), window);
}

export async function findGroup(db: Executor, id: string): Promise<GroupRow | undefined> {
  return db.selectFrom('groups').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Member asset ids of each group, in asset id order. */
export async function listGroupMembers(
  db: Executor,
  groupIds: readonly string[],
): Promise<Map<string, string[]>> {
  const members = new Map<string, string[]>(groupIds.map((id) => [id, []]));
  if (groupIds.length === 0) return members;
  const rows = await db
    .selectFrom('group_members')
    .select(['group_id', 'asset_id'])
    .where('group_id', 'in', groupIds)
    .orderBy('asset_id')
    .execute();
  for (const row of rows) members.get(row.group_id)?.push(row.asset_id);
  return members;
}

export async function insertGroup(db: Executor, row: GroupRow): Promise<void> {
  await db.insertInto('groups').values(row).execute();
}

export async function updateGroup(
  db: Executor,
  id: string,
  changes: Partial<Omit<GroupRow, 'id'>>,
): Promise<void> {
  await db.updateTable('groups').set(changes).where('id', '=', id).execute();
}

export async function replaceGroupMembers(
  db: Executor,
  groupId: string,
  assetIds: readonly string[],
): Promise<void> {
  await db.deleteFrom('group_members').where('group_id', '=', groupId).execute();
  for (let i = 0; i < assetIds.length; i += 500) {
    const chunk = assetIds.slice(i, i + 500).map((assetId) => ({ group_id: groupId, asset_id: assetId }));
    await db.insertInto('group_members').values(chunk).execute();
  }
}

export async function deleteGroup(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('group_members').where('group_id', '=', id).execute();
  await db.deleteFrom('groups').where('id', '=', id).execute();
}
