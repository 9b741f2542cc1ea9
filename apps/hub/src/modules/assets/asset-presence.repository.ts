/**
 * The agent presence columns of assets (status, holder node, last seen, what the hello said), written by the
 * gateway's presence (agents/presence.ts) through the port asset-presence.service.ts makes of these. Every write
 * about agents a process holds carries its lease's fence (decision 0053), built by the node registry.
 */
import type { Expression, SqlBool } from 'kysely';
import type { AssetsTable, Executor } from '../../platform/db/schema.js';

type AssetRow = AssetsTable;

export async function findPresenceRows(db: Executor, ids: readonly string[]): Promise<AssetRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('assets').selectAll().where('id', 'in', ids).execute();
}

export async function writeOnline(
  db: Executor,
  id: string,
  changes: Partial<AssetRow>,
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('assets')
    .set(changes)
    .where('id', '=', id)
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** One write for many connects that change the same columns: the ids it changed (the fence may refuse). */
export async function writeManyOnline(
  db: Executor,
  ids: readonly string[],
  changes: Partial<AssetRow>,
  fence: Expression<SqlBool>,
): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .updateTable('assets')
    .set(changes)
    .where('id', 'in', ids)
    .where(fence)
    .returning(['id'])
    .execute();
  return rows.map((r) => r.id);
}

export async function writeLastSeen(
  db: Executor,
  ids: readonly string[],
  iso: string,
  node: string,
  fence: Expression<SqlBool>,
): Promise<number> {
  const result = await db
    .updateTable('assets')
    .set({ last_seen_at: iso })
    .where('id', 'in', ids)
    .where('status', '=', 'online')
    .where('agent_node', '=', node)
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function writeOffline(
  db: Executor,
  id: string,
  iso: string,
  node: string,
  fence: Expression<SqlBool>,
): Promise<{ name: string } | undefined> {
  return db
    .updateTable('assets')
    .set({ status: 'offline', last_seen_at: iso })
    .where('id', '=', id)
    .where('agent_node', '=', node)
    .where(fence)
    .returning(['name'])
    .executeTakeFirst();
}

export async function writeAllOffline(
  db: Executor,
  ids: readonly string[],
  iso: string,
  node: string,
  fence: Expression<SqlBool>,
): Promise<number> {
  const result = await db
    .updateTable('assets')
    .set({ status: 'offline', last_seen_at: iso })
    .where('id', 'in', ids)
    .where('agent_node', '=', node)
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export async function listOnlineHeldBy(
  db: Executor,
  node: string,
  limit: number,
  after: string,
): Promise<string[]> {
  const rows = await db
    .selectFrom('assets')
    .select(['id'])
    .where('agent_node', '=', node)
    .where('status', '=', 'online')
    .where('id', '>', after)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

export async function writeGoneOffline(
  db: Executor,
  ids: readonly string[],
  node: string,
  iso: string,
  unregistered: Expression<SqlBool>,
): Promise<{ id: string; name: string }[]> {
  return db
    .updateTable('assets')
    .set({ status: 'offline', last_seen_at: iso })
    .where('id', 'in', ids)
    .where('agent_node', '=', node)
    .where('status', '=', 'online')
    .where(unregistered)
    .returning(['id', 'name'])
    .execute();
}

export async function writeOnlineAgain(
  db: Executor,
  ids: readonly string[],
  node: string,
  iso: string,
  fence: Expression<SqlBool>,
): Promise<{ id: string; name: string }[]> {
  return db
    .updateTable('assets')
    .set({ status: 'online', agent_node: node, last_seen_at: iso })
    .where('id', 'in', ids)
    .where('status', '<>', 'online')
    .where(fence)
    .returning(['id', 'name'])
    .execute();
}

export async function writeOrphansOffline(db: Executor, liveNodes: readonly string[]): Promise<number> {
  const result = await db
    .updateTable('assets')
    .set({ status: 'offline' })
    .where('source', '=', 'agent')
    .where('status', '=', 'online')
    .where((eb) =>
      liveNodes.length === 0
        ? eb('agent_node', 'is', null)
        : eb.or([eb('agent_node', 'is', null), eb('agent_node', 'not in', liveNodes)]),
    )
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
