import { sql } from 'kysely';
import type { AssetSort, AssetStatus, Platform } from '@svc/protocol';
import type { AssetsTable, Executor } from '../../platform/db/schema.js';
import { likePattern, listPage, type Window } from '../../platform/db/paging.js';
import { runCompiledOnce } from '../../platform/db/compiled-once.js';
import type { AssetSummary } from '../../agents/asset-reads.js';

export type AssetRow = AssetsTable;

export interface AssetFilter {
  status?: AssetStatus | undefined;
  platform?: Platform | undefined;
  /** Only these ids; null means every asset. */
  visible: readonly string[] | null;
  /** Case-insensitive substring of name, hostname, ip addresses or tags. */
  text?: string | undefined;
  /** Only members of this group (an unknown group matches nothing). */
  group?: string | undefined;
  /** Only these ids (the `ids=` filter; unknown ids match nothing). */
  ids?: readonly string[] | undefined;
}

/** Characters JSON.stringify puts around or into list items. */
const jsonListSyntax = /["\\,[\]]/;

function filtered(db: Executor, filter: AssetFilter) {
  let query = db.selectFrom('assets');
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.platform) query = query.where('platform', '=', filter.platform);
  if (filter.visible !== null) {
    if (filter.visible.length === 0) return query.where(sql<boolean>`1 = 0`);
    query = query.where('id', 'in', filter.visible);
  }
  if (filter.ids !== undefined) query = query.where('id', 'in', filter.ids);
  if (filter.group !== undefined) {
    const group = filter.group;
    query = query.where('id', 'in', (eb) =>
      eb
        .selectFrom('group_members')
        .select('group_members.asset_id')
        .where('group_members.group_id', '=', group),
    );
  }
  if (filter.text !== undefined) {
    const pattern = likePattern(filter.text);
    // The lists are JSON text: text with a quote, comma, bracket or backslash could only match their JSON
    // syntax ('[' would match every asset), never one address or tag, so those columns are left out.
    const searchesLists = !jsonListSyntax.test(filter.text);
    query = query.where((eb) =>
      eb.or([
        eb(sql`lower(name)`, 'like', sql`${pattern} escape '\\'`),
        eb(sql`lower(coalesce(hostname, ''))`, 'like', sql`${pattern} escape '\\'`),
        ...(searchesLists
          ? [
              eb(sql`lower(ip_addresses)`, 'like', sql`${pattern} escape '\\'`),
              eb(sql`lower(tags)`, 'like', sql`${pattern} escape '\\'`),
            ]
          : []),
      ]),
    );
  }
  return query;
}

const sortColumns = {
  name: 'name',
  status: 'status',
  platform: 'platform',
  last_seen_at: 'last_seen_at',
} as const;

export async function listAssets(
  db: Executor,
  filter: AssetFilter,
  window: Window,
  sort: AssetSort = 'name',
): Promise<{ rows: AssetRow[]; total: number }> {
  const descending = sort.startsWith('-');
  const column = sortColumns[sort.replace('-', '') as keyof typeof sortColumns];
  let query = filtered(db, filter).selectAll();
  // Never-seen assets last in both directions, and on both databases (they order NULL differently).
  if (column === 'last_seen_at') query = query.orderBy(sql`case when last_seen_at is null then 1 else 0 end`);
  if (column !== 'name') query = query.orderBy(column, descending ? 'desc' : 'asc');
  return listPage(
    query.orderBy('name', column === 'name' && descending ? 'desc' : 'asc').orderBy('id'),
    window,
  );
}

export async function countAssets(db: Executor, visible: readonly string[] | null): Promise<number> {
  const row = await filtered(db, { visible })
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Counts by status among the visible assets (null: all), in one grouped query. */
export async function countAssetsByStatus(
  db: Executor,
  visible: readonly string[] | null,
): Promise<Record<string, number>> {
  const rows = await filtered(db, { visible })
    .select(['status', (eb) => eb.fn.countAll<string | number>().as('n')])
    .groupBy('status')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
}

export async function findAsset(db: Executor, id: string): Promise<AssetRow | undefined> {
  return db.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertAsset(db: Executor, row: AssetRow): Promise<void> {
  await db.insertInto('assets').values(row).execute();
}

export async function updateAsset(
  db: Executor,
  id: string,
  changes: Partial<Omit<AssetRow, 'id'>>,
): Promise<void> {
  await db.updateTable('assets').set(changes).where('id', '=', id).execute();
}

/** Its metric samples are left to the metrics module's purger: there may be millions. */
export async function deleteAsset(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('group_members').where('asset_id', '=', id).execute();
  await db.deleteFrom('assets').where('id', '=', id).execute();
}

/** The ids among `ids` that name no asset. */
export async function findMissingAssetIds(db: Executor, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.selectFrom('assets').select('id').where('id', 'in', chunk).execute();
    for (const r of rows) found.add(r.id);
  }
  return ids.filter((id) => !found.has(id));
}

/** Presence of the given assets (null: of every asset, up to `limit`), in id order. */
export async function listAssetPresence(
  db: Executor,
  ids: readonly string[] | null,
  limit: number,
): Promise<Pick<AssetRow, 'id' | 'name' | 'status' | 'last_seen_at'>[]> {
  const columns = ['id', 'name', 'status', 'last_seen_at'] as const;
  if (ids === null) return db.selectFrom('assets').select(columns).orderBy('id').limit(limit).execute();
  const rows: Pick<AssetRow, 'id' | 'name' | 'status' | 'last_seen_at'>[] = [];
  for (let i = 0; i < ids.length && rows.length < limit; i += 500) {
    const chunk = ids.slice(i, i + 500);
    rows.push(...(await db.selectFrom('assets').select(columns).where('id', 'in', chunk).execute()));
  }
  return rows.slice(0, limit);
}

const lookupChunk = 500;
const summaryColumns = ['id', 'name', 'last_seen_at', 'hub_host', 'status'] as const;

/**
 * The assets among `ids` that exist, in no particular order, looked up 500 at a time; full chunks reuse one
 * compiled statement (a fan-out to 10,000 assets looks up 20 of them).
 */
export async function findAssetSummaries(db: Executor, ids: readonly string[]): Promise<AssetSummary[]> {
  const rows: AssetSummary[] = [];
  for (let i = 0; i < ids.length; i += lookupChunk) {
    const chunk = ids.slice(i, i + lookupChunk);
    if (chunk.length < lookupChunk) {
      rows.push(...(await db.selectFrom('assets').select(summaryColumns).where('id', 'in', chunk).execute()));
      continue;
    }
    const found = await runCompiledOnce(
      db,
      'assets.by-ids',
      lookupChunk,
      ['id'],
      (markers) =>
        db
          .selectFrom('assets')
          .select(summaryColumns)
          .where(
            'id',
            'in',
            Array.from({ length: lookupChunk }, (_, index) => markers(index).id),
          ),
      chunk.map((id) => ({ id })),
    );
    rows.push(...found);
  }
  return rows;
}

/** Online agents by the node that marked them online (assets.agent_node, decision 0039). */
export async function countOnlineAgentsByNode(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('assets')
    .select(['agent_node', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('status', '=', 'online')
    .where('agent_node', 'is not', null)
    .groupBy('agent_node')
    .execute();
  return new Map(rows.flatMap((r) => (r.agent_node ? [[r.agent_node, Number(r.n)] as const] : [])));
}

/** Names of the assets among `ids` that exist. */
export async function findAssetNames(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    const rows = await db.selectFrom('assets').select(['id', 'name']).where('id', 'in', chunk).execute();
    for (const row of rows) names.set(row.id, row.name);
  }
  return names;
}
