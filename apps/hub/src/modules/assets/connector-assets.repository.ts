import type { AssetRow } from './assets.repository.js';
import type { Executor } from '../../platform/db/schema.js';

export async function listConnectorAssets(db: Executor, connectorId: string): Promise<AssetRow[]> {
  return db.selectFrom('assets').selectAll().where('connector_id', '=', connectorId).orderBy('id').execute();
}

export async function listAllConnectorAssets(db: Executor): Promise<AssetRow[]> {
  return db.selectFrom('assets').selectAll().where('source', '=', 'connector').orderBy('id').execute();
}

export async function countConnectorAssets(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('assets')
    .select(['connector_id', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('source', '=', 'connector')
    .groupBy('connector_id')
    .execute();
  return new Map(rows.map((r) => [r.connector_id ?? '', Number(r.n)]));
}

export async function insertConnectorAsset(db: Executor, row: AssetRow): Promise<void> {
  await db.insertInto('assets').values(row).execute();
}

export async function updateConnectorAsset(
  db: Executor,
  id: string,
  changes: Partial<Omit<AssetRow, 'id'>>,
): Promise<void> {
  await db.updateTable('assets').set(changes).where('id', '=', id).execute();
}

export async function deleteConnectorAssets(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.deleteFrom('group_members').where('asset_id', 'in', ids).execute();
  await db.deleteFrom('assets').where('id', 'in', ids).execute();
}

export async function findConnectorAssetRow(db: Executor, id: string): Promise<AssetRow | undefined> {
  return db
    .selectFrom('assets')
    .selectAll()
    .where('id', '=', id)
    .where('source', '=', 'connector')
    .executeTakeFirst();
}

export async function findAnyAssetId(db: Executor, id: string): Promise<{ id: string } | undefined> {
  return db.selectFrom('assets').select('id').where('id', '=', id).executeTakeFirst();
}
