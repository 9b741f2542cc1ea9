/** The only code that queries `discovery_suggestions`. */
import type { Executor, DiscoverySuggestionsTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type SuggestionRow = DiscoverySuggestionsTable;

export async function findSuggestionsByKeys(
  db: Executor,
  keys: readonly string[],
): Promise<Map<string, SuggestionRow>> {
  const found = new Map<string, SuggestionRow>();
  for (let i = 0; i < keys.length; i += 500) {
    const chunk = keys.slice(i, i + 500);
    if (chunk.length === 0) continue;
    const rows = await db.selectFrom('discovery_suggestions').selectAll().where('key', 'in', chunk).execute();
    for (const row of rows) found.set(row.key, row);
  }
  return found;
}

export async function insertSuggestions(db: Executor, rows: readonly SuggestionRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 200) {
    const chunk = rows.slice(i, i + 200);
    if (chunk.length > 0) await db.insertInto('discovery_suggestions').values(chunk).execute();
  }
}

/** Found again: the newest details and time; its status stays what a person decided. */
export async function touchSuggestion(
  db: Executor,
  id: string,
  values: Pick<SuggestionRow, 'title' | 'detail' | 'last_seen_at'>,
): Promise<void> {
  await db.updateTable('discovery_suggestions').set(values).where('id', '=', id).execute();
}

export async function findSuggestion(db: Executor, id: string): Promise<SuggestionRow | undefined> {
  return db.selectFrom('discovery_suggestions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Decides a pending suggestion; false when it was decided already (by someone else, a moment ago). */
export async function decideSuggestion(
  db: Executor,
  id: string,
  values: Pick<SuggestionRow, 'status' | 'decided_at' | 'decided_by' | 'created_asset_id'>,
): Promise<boolean> {
  const result = await db
    .updateTable('discovery_suggestions')
    .set(values)
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function listSuggestions(
  db: Executor,
  filter: { status?: string | undefined; kind?: string | undefined },
  window: Window,
): Promise<{ rows: SuggestionRow[]; total: number }> {
  let query = db.selectFrom('discovery_suggestions').selectAll();
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  if (filter.kind !== undefined) query = query.where('kind', '=', filter.kind);
  return listPage(query.orderBy('last_seen_at', 'desc').orderBy('id', 'asc'), window);
}

export async function setCreatedAsset(db: Executor, id: string, assetId: string): Promise<void> {
  await db
    .updateTable('discovery_suggestions')
    .set({ created_asset_id: assetId })
    .where('id', '=', id)
    .execute();
}

/** An accepted suggestion whose follow-up failed waits again. */
export async function reopenSuggestion(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('discovery_suggestions')
    .set({ status: 'pending', decided_at: null, decided_by: null })
    .where('id', '=', id)
    .execute();
}
