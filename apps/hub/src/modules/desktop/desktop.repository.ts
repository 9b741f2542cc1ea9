import { nodeUnregistered } from '../../platform/cluster/db-node-registry.js';
import type {
  DesktopCredentialsTable,
  DesktopRecordingsTable,
  DesktopSessionsTable,
  Executor,
} from '../../platform/db/schema.js';

export type DesktopCredentialsRow = DesktopCredentialsTable;

export async function findDesktopCredentials(
  db: Executor,
  assetId: string,
): Promise<DesktopCredentialsRow | undefined> {
  return db.selectFrom('desktop_credentials').selectAll().where('asset_id', '=', assetId).executeTakeFirst();
}

export async function saveDesktopCredentials(db: Executor, row: DesktopCredentialsRow): Promise<void> {
  await db
    .insertInto('desktop_credentials')
    .values(row)
    .onConflict((oc) =>
      oc.column('asset_id').doUpdateSet({
        password_sealed: row.password_sealed,
        username_sealed: row.username_sealed,
        updated_at: row.updated_at,
      }),
    )
    .execute();
}

/** Resolves with whether a row was there. */
export async function deleteDesktopCredentials(db: Executor, assetId: string): Promise<boolean> {
  const result = await db
    .deleteFrom('desktop_credentials')
    .where('asset_id', '=', assetId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

export type DesktopRecordingRow = DesktopRecordingsTable;

export async function insertDesktopRecording(db: Executor, row: DesktopRecordingRow): Promise<void> {
  await db.insertInto('desktop_recordings').values(row).execute();
}

export async function finishDesktopRecording(
  db: Executor,
  id: string,
  endedAt: string,
  bytes: number,
): Promise<void> {
  await db.updateTable('desktop_recordings').set({ ended_at: endedAt, bytes }).where('id', '=', id).execute();
}

export async function findDesktopRecording(
  db: Executor,
  id: string,
): Promise<DesktopRecordingRow | undefined> {
  return db.selectFrom('desktop_recordings').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first; `owner` null lists everyone's (an admin). */
export async function listDesktopRecordings(
  db: Executor,
  owner: { owner_type: string; owner_id: string } | null,
  limit: number,
): Promise<DesktopRecordingRow[]> {
  let query = db.selectFrom('desktop_recordings').selectAll();
  if (owner !== null)
    query = query.where('owner_type', '=', owner.owner_type).where('owner_id', '=', owner.owner_id);
  return query.orderBy('started_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

export async function deleteDesktopRecording(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('desktop_recording_chunks').where('recording_id', '=', id).execute();
  await db.deleteFrom('desktop_recordings').where('id', '=', id).execute();
}

export async function appendDesktopChunk(
  db: Executor,
  recordingId: string,
  seq: number,
  data: Buffer,
): Promise<void> {
  await db
    .insertInto('desktop_recording_chunks')
    .values({ recording_id: recordingId, seq, data: data.toString('base64') })
    .execute();
}

/** The chunks from `fromSeq` on, in order, at most `limit`. */
export async function readDesktopChunks(
  db: Executor,
  recordingId: string,
  fromSeq: number,
  limit: number,
): Promise<{ seq: number; data: Buffer }[]> {
  const rows = await db
    .selectFrom('desktop_recording_chunks')
    .select(['seq', 'data'])
    .where('recording_id', '=', recordingId)
    .where('seq', '>=', fromSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ seq: r.seq, data: Buffer.from(r.data, 'base64') }));
}

/** Finished recordings started before `cutoff`, oldest first (retention). */
export async function listDesktopRecordingsBefore(
  db: Executor,
  cutoff: string,
  limit: number,
): Promise<DesktopRecordingRow[]> {
  return db
    .selectFrom('desktop_recordings')
    .selectAll()
    .where('started_at', '<', cutoff)
    .where('ended_at', 'is not', null)
    .orderBy('started_at')
    .limit(limit)
    .execute();
}

export async function deleteDesktopRecordings(db: Executor, ids: readonly string[]): Promise<void> {
  if (ids.length === 0) return;
  await db
    .deleteFrom('desktop_recording_chunks')
    .where('recording_id', 'in', [...ids])
    .execute();
  await db
    .deleteFrom('desktop_recordings')
    .where('id', 'in', [...ids])
    .execute();
}

export type DesktopSessionRow = DesktopSessionsTable;

export async function insertDesktopSession(db: Executor, row: DesktopSessionRow): Promise<void> {
  await db.insertInto('desktop_sessions').values(row).execute();
}

export async function deleteDesktopSession(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('desktop_sessions').where('id', '=', id).execute();
}

export async function findDesktopSession(db: Executor, id: string): Promise<DesktopSessionRow | undefined> {
  return db.selectFrom('desktop_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The sessions other nodes hold, newest first. */
export async function listDesktopSessionsElsewhere(
  db: Executor,
  nodeId: string,
  limit: number,
): Promise<DesktopSessionRow[]> {
  return db
    .selectFrom('desktop_sessions')
    .selectAll()
    .where('node_id', '!=', nodeId)
    .orderBy('created_at', 'desc')
    .limit(limit)
    .execute();
}

/**
 * Forgets the sessions of nodes not in `live` (they went with their process); `live` null (a cluster of one)
 * forgets every session but this node's.
 */
export async function deleteDesktopSessionsNotOn(db: Executor, live: readonly string[]): Promise<number> {
  const result = await db
    .deleteFrom('desktop_sessions')
    .where('node_id', 'not in', [...live])
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}

export async function deleteDesktopSessionsOf(db: Executor, nodeId: string): Promise<number> {
  const result = await db
    .deleteFrom('desktop_sessions')
    .where('node_id', '=', nodeId)
    // A node that registered again meanwhile (it had only stalled) holds its sessions again (decision 0053).
    .where(nodeUnregistered(nodeId))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
