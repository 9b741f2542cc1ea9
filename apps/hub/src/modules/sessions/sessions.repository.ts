/** Queries of remote sessions, recordings and their chunks (migration 0014). */
import type { Expression, Selectable, SqlBool } from 'kysely';
import { nodeUnregistered } from '../../platform/cluster/db-node-registry.js';
import type { Executor, RemoteSessionsTable, SessionRecordingsTable } from '../../platform/db/schema.js';

export type RemoteSessionRow = Selectable<RemoteSessionsTable>;
export type RecordingRow = Selectable<SessionRecordingsTable>;

export interface OwnerFilter {
  owner_type: string;
  owner_id: string;
}

export async function insertSession(db: Executor, row: RemoteSessionRow): Promise<void> {
  await db.insertInto('remote_sessions').values(row).execute();
}

export async function updateSession(
  db: Executor,
  id: string,
  changes: Partial<Omit<RemoteSessionRow, 'id'>>,
): Promise<void> {
  await db.updateTable('remote_sessions').set(changes).where('id', '=', id).execute();
}

/**
 * The owner's write of its session's end (decision 0053): only while the session is still live and `fence`
 * (this process's lease) holds, so a session the survivors of a stall already ended keeps what they wrote.
 * Resolves false when it changed nothing.
 */
export async function endOwnedSession(
  db: Executor,
  id: string,
  changes: Partial<Omit<RemoteSessionRow, 'id'>>,
  fence: Expression<SqlBool>,
): Promise<boolean> {
  const result = await db
    .updateTable('remote_sessions')
    .set(changes)
    .where('id', '=', id)
    .where('state', '=', 'live')
    .where(fence)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function findSession(db: Executor, id: string): Promise<RemoteSessionRow | undefined> {
  return db.selectFrom('remote_sessions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listSessions(
  db: Executor,
  filter: { owner: OwnerFilter | null; state?: string | undefined },
  page: { limit: number; offset: number },
): Promise<{ rows: RemoteSessionRow[]; total: number }> {
  let query = db.selectFrom('remote_sessions');
  if (filter.owner) {
    query = query
      .where('owner_type', '=', filter.owner.owner_type)
      .where('owner_id', '=', filter.owner.owner_id);
  }
  if (filter.state) query = query.where('state', '=', filter.state);
  const total = await query
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { rows, total: Number(total.n) };
}

/**
 * Sessions left live by processes that no longer run them, created before `startedAt`: those of nodes not in
 * `live`, and, in a cluster of one (`live` null), every one (a previous process of this hub held them).
 * Their recordings end with them. Returns how many sessions ended.
 */
export async function endLiveSessions(
  db: Executor,
  startedAt: string,
  reason: string,
  live: readonly string[] | null,
): Promise<number> {
  let query = db
    .selectFrom('remote_sessions')
    .select(['id', 'recording_id'])
    .where('state', '=', 'live')
    .where('created_at', '<', startedAt);
  if (live !== null) {
    query = query.where('node_id', 'is not', null);
    if (live.length > 0) query = query.where('node_id', 'not in', [...live]);
  }
  const ended = await endRows(db, await query.execute(), startedAt, reason);
  if (live === null) {
    // Alone, no recording from before this start is still being written.
    await db
      .updateTable('session_recordings')
      .set({ ended_at: startedAt })
      .where('ended_at', 'is', null)
      .where('created_at', '<', startedAt)
      .execute();
  }
  return ended;
}

/** The live sessions of a node that is gone (decision 0043). Returns how many ended. */
export async function endSessionsOfNode(
  db: Executor,
  nodeId: string,
  nowIso: string,
  reason: string,
): Promise<number> {
  const rows = await db
    .selectFrom('remote_sessions')
    .select(['id', 'recording_id'])
    .where('state', '=', 'live')
    .where('node_id', '=', nodeId)
    // A node that registered again meanwhile (it had only stalled) holds its sessions again (decision 0053).
    .where(nodeUnregistered(nodeId))
    .execute();
  return endRows(db, rows, nowIso, reason);
}

const endBatch = 500;

async function endRows(
  db: Executor,
  rows: { id: string; recording_id: string | null }[],
  nowIso: string,
  reason: string,
): Promise<number> {
  let ended = 0;
  for (let i = 0; i < rows.length; i += endBatch) {
    const batch = rows.slice(i, i + endBatch);
    const result = await db
      .updateTable('remote_sessions')
      .set({ state: 'ended', ended_at: nowIso, end_reason: reason })
      .where('state', '=', 'live')
      .where(
        'id',
        'in',
        batch.map((r) => r.id),
      )
      .executeTakeFirst();
    ended += Number(result.numUpdatedRows);
    const recordings = batch.flatMap((r) => (r.recording_id ? [r.recording_id] : []));
    if (recordings.length > 0) {
      await db
        .updateTable('session_recordings')
        .set({ ended_at: nowIso })
        .where('ended_at', 'is', null)
        .where('id', 'in', recordings)
        .execute();
    }
  }
  return ended;
}

export async function insertRecording(db: Executor, row: RecordingRow): Promise<void> {
  await db.insertInto('session_recordings').values(row).execute();
}

export async function updateRecording(
  db: Executor,
  id: string,
  changes: Partial<Omit<RecordingRow, 'id'>>,
): Promise<void> {
  await db.updateTable('session_recordings').set(changes).where('id', '=', id).execute();
}

export async function findRecording(db: Executor, id: string): Promise<RecordingRow | undefined> {
  return db.selectFrom('session_recordings').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function listRecordings(
  db: Executor,
  owner: OwnerFilter | null,
  page: { limit: number; offset: number },
): Promise<{ rows: RecordingRow[]; total: number }> {
  let query = db.selectFrom('session_recordings');
  if (owner) query = query.where('owner_type', '=', owner.owner_type).where('owner_id', '=', owner.owner_id);
  const total = await query
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  const rows = await query
    .selectAll()
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .limit(page.limit)
    .offset(page.offset)
    .execute();
  return { rows, total: Number(total.n) };
}

export async function appendChunk(
  db: Executor,
  recordingId: string,
  seq: number,
  data: string,
): Promise<void> {
  await db.insertInto('session_recording_chunks').values({ recording_id: recordingId, seq, data }).execute();
}

export async function readChunks(db: Executor, recordingId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('session_recording_chunks')
    .select('data')
    .where('recording_id', '=', recordingId)
    .orderBy('seq')
    .execute();
  return rows.map((r) => r.data);
}

export async function deleteRecording(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('session_recording_chunks').where('recording_id', '=', id).execute();
  await db.deleteFrom('session_recordings').where('id', '=', id).execute();
}

/** Recordings that ended before `cutoff`, oldest first, at most `limit`: removed with their chunks. */
export async function deleteRecordingsBefore(db: Executor, cutoff: string, limit: number): Promise<number> {
  const rows = await db
    .selectFrom('session_recordings')
    .select('id')
    .where('ended_at', 'is not', null)
    .where('ended_at', '<', cutoff)
    .orderBy('ended_at')
    .limit(limit)
    .execute();
  for (const row of rows) await deleteRecording(db, row.id);
  return rows.length;
}
