import { sql } from 'kysely';
import type { Executor, MobileTelemetryTable, WebauthnCredentialsTable } from '../../platform/db/schema.js';

export type WebauthnCredentialRow = WebauthnCredentialsTable;

export async function credentialsOf(db: Executor, userId: string): Promise<WebauthnCredentialRow[]> {
  return db
    .selectFrom('webauthn_credentials')
    .selectAll()
    .where('user_id', '=', userId)
    .orderBy('id')
    .execute();
}

export async function findCredential(
  db: Executor,
  userId: string,
  credentialId: string,
): Promise<WebauthnCredentialRow | undefined> {
  return db
    .selectFrom('webauthn_credentials')
    .selectAll()
    .where('user_id', '=', userId)
    .where('credential_id', '=', credentialId)
    .executeTakeFirst();
}

export async function insertCredential(db: Executor, row: WebauthnCredentialRow): Promise<void> {
  await db.insertInto('webauthn_credentials').values(row).execute();
}

export async function markCredentialUsed(
  db: Executor,
  id: string,
  counter: number,
  at: string,
): Promise<void> {
  await db
    .updateTable('webauthn_credentials')
    .set({ counter, last_used_at: at })
    .where('id', '=', id)
    .execute();
}

export async function telemetrySince(db: Executor, userId: string, since: string): Promise<number> {
  const row = await db
    .selectFrom('mobile_telemetry')
    .select(sql<number | string>`count(*)`.as('n'))
    .where('user_id', '=', userId)
    .where('received_at', '>=', since)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export async function insertTelemetry(db: Executor, rows: MobileTelemetryTable[]): Promise<void> {
  if (rows.length > 0) await db.insertInto('mobile_telemetry').values(rows).execute();
}

export async function purgeTelemetry(db: Executor, cutoff: string, limit: number): Promise<number> {
  const ids = await db
    .selectFrom('mobile_telemetry')
    .select('id')
    .where('received_at', '<', cutoff)
    .limit(limit)
    .execute();
  if (ids.length === 0) return 0;
  await db
    .deleteFrom('mobile_telemetry')
    .where(
      'id',
      'in',
      ids.map((r) => r.id),
    )
    .execute();
  return ids.length;
}

/** A user's WebAuthn credentials go; answers how many. */
export async function deleteCredentialsOf(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('webauthn_credentials').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}

/** A user's telemetry goes; answers how many events. */
export async function deleteTelemetryOf(db: Executor, userId: string): Promise<number> {
  const result = await db.deleteFrom('mobile_telemetry').where('user_id', '=', userId).executeTakeFirst();
  return Number(result.numDeletedRows);
}
