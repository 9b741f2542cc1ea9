import type { Executor, UsersTable } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type UserRow = UsersTable;

/** Whether a write failed on a unique constraint (SQLite or PostgreSQL): a concurrent insert won the race. */
export function isUniqueViolation(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const code = (error as { code?: unknown }).code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

export async function insertUser(db: Executor, row: UserRow): Promise<void> {
  await db.insertInto('users').values(row).execute();
}

export async function findUser(db: Executor, id: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findUserByUsername(db: Executor, username: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('username', '=', username).executeTakeFirst();
}

/** The first account made for an OpenID subject. */
export async function findUserByOidcSubject(db: Executor, subject: string): Promise<UserRow | undefined> {
  return db
    .selectFrom('users')
    .selectAll()
    .where('oidc_subject', '=', subject)
    .orderBy('created_at')
    .executeTakeFirst();
}

export async function findUserByRole(db: Executor, role: string): Promise<UserRow | undefined> {
  return db.selectFrom('users').selectAll().where('role', '=', role).orderBy('id').executeTakeFirst();
}

export async function listUsers(db: Executor, window: Window): Promise<{ rows: UserRow[]; total: number }> {
  return listPage(db.selectFrom('users').selectAll().orderBy('username'), window);
}

export async function updateUser(
  db: Executor,
  id: string,
  changes: Partial<Omit<UserRow, 'id'>>,
): Promise<void> {
  await db.updateTable('users').set(changes).where('id', '=', id).execute();
}
