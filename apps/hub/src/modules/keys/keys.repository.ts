import type { ApiKeysTable, Executor } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type ApiKeyRow = ApiKeysTable;

export async function insertApiKey(db: Executor, row: ApiKeyRow): Promise<void> {
  await db.insertInto('api_keys').values(row).execute();
}

/**
 * A key with its user's role as the database has it now (null for a key no user owns), and when that user
 * was disabled (decision 0087: null while enabled, or for a key no user owns).
 */
export type KeyWithUserRole = ApiKeyRow & { user_role: string | null; user_disabled_at: string | null };

function keysWithUserRole(db: Executor) {
  return db
    .selectFrom('api_keys')
    .leftJoin('users', 'users.id', 'api_keys.user_id')
    .selectAll('api_keys')
    .select(['users.role as user_role', 'users.disabled_at as user_disabled_at']);
}

export async function findApiKeyByHash(db: Executor, keyHash: string): Promise<KeyWithUserRole | undefined> {
  return keysWithUserRole(db).where('api_keys.key_hash', '=', keyHash).executeTakeFirst();
}

export async function findApiKeyWithUserRole(db: Executor, id: string): Promise<KeyWithUserRole | undefined> {
  return keysWithUserRole(db).where('api_keys.id', '=', id).executeTakeFirst();
}

export async function findApiKey(db: Executor, id: string): Promise<ApiKeyRow | undefined> {
  return db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listApiKeys(
  db: Executor,
  window: Window,
): Promise<{ rows: ApiKeyRow[]; total: number }> {
  return listPage(db.selectFrom('api_keys').selectAll().orderBy('id'), window);
}

export async function updateApiKey(
  db: Executor,
  id: string,
  changes: Partial<Omit<ApiKeyRow, 'id' | 'key_hash'>>,
): Promise<void> {
  await db.updateTable('api_keys').set(changes).where('id', '=', id).execute();
}

export async function deleteApiKey(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('api_keys').where('id', '=', id).execute();
}

export async function listApiKeyIdsByRole(db: Executor, role: string): Promise<string[]> {
  const rows = await db.selectFrom('api_keys').select('id').where('role', '=', role).execute();
  return rows.map((r) => r.id);
}

export async function listApiKeysOfUser(db: Executor, userId: string): Promise<ApiKeyRow[]> {
  return db.selectFrom('api_keys').selectAll().where('user_id', '=', userId).orderBy('id').execute();
}
