import type { ConnectorsTable, Executor } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type ConnectorRow = ConnectorsTable;

export async function listConnectors(
  db: Executor,
  window: Window,
): Promise<{ rows: ConnectorRow[]; total: number }> {
  return listPage(db.selectFrom('connectors').selectAll().orderBy('name').orderBy('id'), window);
}

export async function allConnectors(db: Executor): Promise<ConnectorRow[]> {
  return db.selectFrom('connectors').selectAll().orderBy('name').orderBy('id').execute();
}

export async function findConnector(db: Executor, id: string): Promise<ConnectorRow | undefined> {
  return db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function insertConnector(db: Executor, row: ConnectorRow): Promise<void> {
  await db.insertInto('connectors').values(row).execute();
}

export async function updateConnector(
  db: Executor,
  id: string,
  changes: Partial<Omit<ConnectorRow, 'id'>>,
): Promise<void> {
  await db.updateTable('connectors').set(changes).where('id', '=', id).execute();
}

export async function deleteConnector(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('connectors').where('id', '=', id).execute();
}
