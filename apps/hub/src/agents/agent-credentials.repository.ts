import type { AgentCredentialsTable, Executor } from '../platform/db/schema.js';

export type AgentCredentialRow = AgentCredentialsTable;

export async function insertAgentCredential(db: Executor, row: AgentCredentialRow): Promise<void> {
  await db.insertInto('agent_credentials').values(row).execute();
}

/** The credentials with these hashes (at most a few hundred), only those whose asset still exists. */
export async function findAgentCredentialsByHashes(
  db: Executor,
  credentialHashes: readonly string[],
): Promise<AgentCredentialRow[]> {
  if (credentialHashes.length === 0) return [];
  return db
    .selectFrom('agent_credentials')
    .innerJoin('assets', 'assets.id', 'agent_credentials.asset_id')
    .selectAll('agent_credentials')
    .where('agent_credentials.credential_hash', 'in', credentialHashes)
    .execute();
}

export async function findAgentCredential(
  db: Executor,
  assetId: string,
): Promise<AgentCredentialRow | undefined> {
  return db.selectFrom('agent_credentials').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
}

/**
 * Replaces the asset's credential hash, only if it is still the one the rotation started from (a revocation
 * or another rotation in between wins). Returns whether it replaced it.
 */
export async function replaceAgentCredentialHash(
  db: Executor,
  assetId: string,
  expectedHash: string,
  newHash: string,
  rotatedAt: string,
): Promise<boolean> {
  const result = await db
    .updateTable('agent_credentials')
    .set({ credential_hash: newHash, rotated_at: rotatedAt })
    .where('asset_id', '=', assetId)
    .where('credential_hash', '=', expectedHash)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

/** Deletes the asset's credential; returns whether there was one. */
export async function deleteAgentCredential(db: Executor, assetId: string): Promise<boolean> {
  const result = await db.deleteFrom('agent_credentials').where('asset_id', '=', assetId).executeTakeFirst();
  return Number(result.numDeletedRows) === 1;
}
