import type { Executor } from '../../platform/db/schema.js';
import type { AssetRow } from '../assets/assets.repository.js';

/** The assets among `ids` that exist, in no particular order (looked up 500 at a time). */
export async function findAssetsByIds(db: Executor, ids: readonly string[]): Promise<AssetRow[]> {
  const rows: AssetRow[] = [];
  for (let i = 0; i < ids.length; i += 500) {
    const chunk = ids.slice(i, i + 500);
    rows.push(...(await db.selectFrom('assets').selectAll().where('id', 'in', chunk).execute()));
  }
  return rows;
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
