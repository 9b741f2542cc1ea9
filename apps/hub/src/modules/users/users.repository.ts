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

/** How many enabled admins and owners there are besides `exceptId`: who could still manage users after a change. */
export async function countOtherActiveAdmins(db: Executor, exceptId: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .where('role', 'in', ['admin', 'owner'])
    .where('disabled_at', 'is', null)
    .where('id', '!=', exceptId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** The ids of the disabled users (few: an admin disables them one by one). */
export async function disabledUserIds(db: Executor): Promise<string[]> {
  const rows = await db.selectFrom('users').select('id').where('disabled_at', 'is not', null).execute();
  return rows.map((r) => r.id);
}

export async function deleteUser(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('users').where('id', '=', id).execute();
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

/** Stores (or clears) the sealed secret of a TOTP setup not yet confirmed. */
export async function setPendingTotp(db: Executor, id: string, sealed: string | null): Promise<void> {
  await db.updateTable('users').set({ totp_pending_secret: sealed }).where('id', '=', id).execute();
}

/** Records a TOTP step as used, once: false when this step or a later one was used already. */
export async function consumeTotpStep(db: Executor, id: string, step: number): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_last_step: step })
    .where('id', '=', id)
    .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Turns TOTP on with its first step used: false when it was on already. */
export async function enableTotp(
  db: Executor,
  id: string,
  sealedSecret: string,
  step: number,
): Promise<boolean> {
  const result = await db
    .updateTable('users')
    .set({ totp_secret: sealedSecret, totp_pending_secret: null, totp_last_step: step })
    .where('id', '=', id)
    .where('totp_secret', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function disableTotp(db: Executor, id: string): Promise<void> {
  await db
    .updateTable('users')
    .set({ totp_secret: null, totp_pending_secret: null, totp_last_step: null })
    .where('id', '=', id)
    .execute();
}
