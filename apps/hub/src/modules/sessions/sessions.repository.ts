/** Queries of remote sessions, recordings and their chunks (migration 0014). */
import type { Selectable } from 'kysely';
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

/** Sessions left live by a previous process (created before `startedAt`): they ended when it did. */
export async function endLiveSessions(db: Executor, startedAt: string, reason: string): Promise<number> {
  const result = await db
    .updateTable('remote_sessions')
    .set({ state: 'ended', ended_at: startedAt, end_reason: reason })
    .where('state', '=', 'live')
    .where('created_at', '<', startedAt)
    .executeTakeFirst();
  await db
    .updateTable('session_recordings')
    .set({ ended_at: startedAt })
    .where('ended_at', 'is', null)
    .where('created_at', '<', startedAt)
    .execute();
  return Number(result.numUpdatedRows);
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
