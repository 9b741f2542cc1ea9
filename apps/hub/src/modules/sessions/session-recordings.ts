/**
 * Terminal recordings (asciicast v2, stored as chunk rows): the recorder a session writes through, and the
 * recordings listed, served (audited as an access) and deleted for their owner or an admin.
 */
import type { Kysely } from 'kysely';
import type { Page, PageRequest } from '../../platform/db/paging.js';
import { pageWindow, toPage } from '../../platform/db/paging.js';
import type { Recording } from '@svc/protocol';
import type { ActionContext, Principal } from '../../access/principal.js';
import { mayUseSession } from '../../access/session-access.js';
import type { Database } from '../../platform/db/schema.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditService } from '../audit/audit.service.js';
import type { LiveSessions } from './live-sessions.js';
import { AsciicastRecorder } from './recorder.js';
import {
  appendChunk,
  deleteRecording,
  findRecording,
  listRecordings,
  readChunks,
  updateRecording,
  type RecordingRow,
} from './sessions.repository.js';

function presentRecording(row: RecordingRow): Recording {
  return {
    id: row.id,
    session_id: row.session_id,
    asset_id: row.asset_id,
    owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session',
    owner_id: row.owner_id,
    format: 'asciicast-v2',
    size_bytes: row.size_bytes,
    truncated: row.truncated === 1,
    created_at: row.created_at,
    ended_at: row.ended_at,
  };
}

/** The recorder of a new session, writing each chunk and the recording's size in one transaction. */
export function startTerminalRecorder(
  deps: { db: Kysely<Database>; logger: Logger },
  recording: { id: string; startedAt: number; maxBytes: number; cols: number; rows: number },
): AsciicastRecorder {
  const { db, logger } = deps;
  const recordingId = recording.id;
  return new AsciicastRecorder(
    {
      append: (seq, data, size, truncated) =>
        db.transaction().execute(async (trx) => {
          await appendChunk(trx, recordingId, seq, data);
          await updateRecording(trx, recordingId, { size_bytes: size, truncated: truncated ? 1 : 0 });
        }),
    },
    recording.startedAt,
    recording.maxBytes,
    { cols: recording.cols, rows: recording.rows },
    (error) => {
      logger.error({ err: error, recording_id: recordingId }, 'writing a recording failed');
    },
  );
}

export interface SessionRecordings {
  recordings(ctx: ActionContext, page: PageRequest): Promise<Page<Recording>>;
  recording(ctx: ActionContext, id: string): Promise<Recording>;
  recordingCast(ctx: ActionContext, id: string): Promise<{ recording: Recording; text: string }>;
  deleteRecording(ctx: ActionContext, id: string): Promise<Recording>;
}

export function createSessionRecordings(deps: {
  db: Kysely<Database>;
  audit: AuditService;
  live: Pick<LiveSessions, 'get'>;
  /** Whose recordings a principal lists: null for all (an admin). */
  ownerFilter: (principal: Principal) => { owner_type: string; owner_id: string } | null;
}): SessionRecordings {
  const { db, audit, live, ownerFilter } = deps;

  async function loadRecording(principal: Principal, id: string): Promise<RecordingRow> {
    const row = await findRecording(db, id);
    if (!row || !mayUseSession(principal, row)) throw new HubError('not_found', `no recording ${id}`);
    return row;
  }

  return {
    async recordings(ctx, page) {
      const result = await listRecordings(db, ownerFilter(ctx.principal), pageWindow(page));
      const visible = result.rows.filter((row) => mayUseSession(ctx.principal, row));
      return toPage(visible.map(presentRecording), result.total, page);
    },

    async recording(ctx, id) {
      return presentRecording(await loadRecording(ctx.principal, id));
    },

    async recordingCast(ctx, id) {
      const row = await loadRecording(ctx.principal, id);
      await live.get(row.session_id)?.recorder?.flush();
      await audit.recordIntent(ctx, [
        {
          action: 'recording.accessed',
          targetType: 'recording',
          targetId: id,
          detail: { session_id: row.session_id },
        },
      ]);
      const chunks = await readChunks(db, id);
      return { recording: presentRecording(row), text: chunks.join('') };
    },

    async deleteRecording(ctx, id) {
      const row = await loadRecording(ctx.principal, id);
      if (!row.ended_at) throw new HubError('conflict', `recording ${id} is still being recorded`);
      await db.transaction().execute(async (trx) => {
        await deleteRecording(trx, id);
        await audit.record(trx, ctx, {
          action: 'recording.deleted',
          targetType: 'recording',
          targetId: id,
          detail: { session_id: row.session_id },
        });
      });
      return presentRecording(row);
    },
  };
}
