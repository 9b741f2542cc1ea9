import type { EnrollmentTokensTable, Executor } from '../../platform/db/schema.js';
import { listPage, type Window } from '../../platform/db/paging.js';

export type EnrollmentTokenRow = EnrollmentTokensTable;

export async function insertEnrollmentToken(db: Executor, row: EnrollmentTokenRow): Promise<void> {
  await db.insertInto('enrollment_tokens').values(row).execute();
}

export async function findEnrollmentToken(db: Executor, id: string): Promise<EnrollmentTokenRow | undefined> {
  return db.selectFrom('enrollment_tokens').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findEnrollmentTokenByHash(
  db: Executor,
  tokenHash: string,
): Promise<EnrollmentTokenRow | undefined> {
  return db
    .selectFrom('enrollment_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export async function listEnrollmentTokens(
  db: Executor,
  window: Window,
): Promise<{ rows: EnrollmentTokenRow[]; total: number }> {
  return listPage(db.selectFrom('enrollment_tokens').selectAll().orderBy('id'), window);
}

/**
 * Takes one use of a token in a single conditional UPDATE, so concurrent enrollments can never take more
 * uses than `max_uses`: the database re-checks the condition on the row it locks. Returns whether a use was
 * taken (false for a used-up, revoked or expired token).
 */
export async function consumeEnrollmentToken(db: Executor, id: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('enrollment_tokens')
    .set((eb) => ({ uses: eb('uses', '+', 1) }))
    .where('id', '=', id)
    .whereRef('uses', '<', 'max_uses')
    .where('revoked_at', 'is', null)
    .where('expires_at', '>', nowIso)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function revokeEnrollmentToken(db: Executor, id: string, nowIso: string): Promise<void> {
  await db
    .updateTable('enrollment_tokens')
    .set({ revoked_at: nowIso })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .execute();
}
