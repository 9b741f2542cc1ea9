/**
 * Reads of the assets table on the agent-call path (operations look their asset up before calling its agent).
 * The assets module owns the table's writes; the gateway's presence writes the agent's state into it.
 */
import { runCompiledOnce } from '../platform/db/compiled-once.js';
import type { AssetsTable, Executor } from '../platform/db/schema.js';

/** An asset as operations see it. */
export type AssetRow = AssetsTable;

const lookupChunk = 500;
const summaryColumns = ['id', 'name', 'last_seen_at', 'hub_host', 'status'] as const;

/**
 * What an operation on many assets needs of each: who it is, when offline since when, whether it is the hub's
 * own host, and its presence status (whether some hub process holds its agent, when this one cannot ask them).
 */
export type AssetSummary = Pick<AssetRow, 'id' | 'name' | 'last_seen_at' | 'hub_host' | 'status'>;

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

export async function findAssetRow(db: Executor, id: string): Promise<AssetRow | undefined> {
  return db.selectFrom('assets').selectAll().where('id', '=', id).executeTakeFirst();
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
