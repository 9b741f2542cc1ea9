/** Recovery codes (bcrypt hashes, each usable once) of the users with two-factor sign-in. */
import { newId } from '@svc/protocol';
import type { Executor } from '../../platform/db/schema.js';

export async function findUnusedRecoveryCodes(
  db: Executor,
  userId: string,
): Promise<{ id: string; code_hash: string }[]> {
  return db
    .selectFrom('recovery_codes')
    .select(['id', 'code_hash'])
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

/** Marks a code used: true once, false when another check used it first. */
export async function useRecoveryCode(db: Executor, id: string, nowIso: string): Promise<boolean> {
  const result = await db
    .updateTable('recovery_codes')
    .set({ used_at: nowIso })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function deleteRecoveryCodes(db: Executor, userId: string): Promise<void> {
  await db.deleteFrom('recovery_codes').where('user_id', '=', userId).execute();
}

/** The user's codes become these (hashes), the earlier ones gone. */
export async function replaceRecoveryCodes(
  db: Executor,
  userId: string,
  hashes: readonly string[],
  nowIso: string,
): Promise<void> {
  await deleteRecoveryCodes(db, userId);
  for (const hash of hashes) {
    await db
      .insertInto('recovery_codes')
      .values({ id: newId('event'), user_id: userId, code_hash: hash, used_at: null, created_at: nowIso })
      .execute();
  }
}
