import type { Executor, SessionsTable } from '../../platform/db/schema.js';

export type SessionRow = SessionsTable;

export async function insertSession(db: Executor, row: SessionRow): Promise<void> {
  await db.insertInto('sessions').values(row).execute();
}

export async function findSessionByHash(db: Executor, tokenHash: string) {
  return (
    db
      .selectFrom('sessions')
      .innerJoin('users', 'users.id', 'sessions.user_id')
      .select([
        'sessions.id as session_id',
        'sessions.token_hash',
        'sessions.expires_at',
        'sessions.last_seen_at',
        'sessions.auth_method',
        'users.id as user_id',
        'users.username',
        'users.role',
        'users.totp_secret',
        'users.must_change_password',
      ])
      .where('sessions.token_hash', '=', tokenHash)
      // A disabled user's sessions were deleted with the change; this keeps one racing it from resolving.
      .where('users.disabled_at', 'is', null)
      .executeTakeFirst()
  );
}

export async function touchSession(db: Executor, id: string, at: string): Promise<void> {
  await db.updateTable('sessions').set({ last_seen_at: at }).where('id', '=', id).execute();
}

export async function deleteSessionByHash(db: Executor, tokenHash: string): Promise<void> {
  await db.deleteFrom('sessions').where('token_hash', '=', tokenHash).execute();
}

export async function sessionExists(db: Executor, id: string, now: string): Promise<boolean> {
  const row = await db
    .selectFrom('sessions')
    .select('id')
    .where('id', '=', id)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}

export async function deleteSessionsForUser(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).execute();
}

export async function deleteOtherSessions(db: Executor, userId: string, keepId: string): Promise<void> {
  await db.deleteFrom('sessions').where('user_id', '=', userId).where('id', '!=', keepId).execute();
}

export async function deleteExpiredSessions(db: Executor, now: string): Promise<void> {
  await db.deleteFrom('sessions').where('expires_at', '<=', now).execute();
}
