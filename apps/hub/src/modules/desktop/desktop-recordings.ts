/**
 * Desktop recordings (decision 0043): each attach, when recording is on, stored as chunk rows in the database
 * so that any hub process serves it, after the recording one is gone; listed and served by id to their
 * recorder and to admins (spec 5.5.1).
 */
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { DesktopRecorder, desktopRecordingMaxBytes, newId, type DesktopRecordingInfo } from '@svc/protocol';
import type { Kysely } from 'kysely';
import { isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import { mayUseSession, ownerOf } from '../../access/session-access.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditService } from '../audit/audit.service.js';
import {
  appendDesktopChunk,
  deleteDesktopRecording,
  deleteDesktopRecordings,
  findDesktopRecording,
  finishDesktopRecording,
  insertDesktopRecording,
  listDesktopRecordings,
  listDesktopRecordingsBefore,
  readDesktopChunks,
  type DesktopRecordingRow,
} from './desktop.repository.js';
import { desktopSessionLimits, ownerOfRow, type ConsoleTarget } from './desktop-session-state.js';

/** A recording is stored as one chunk row about this often, or sooner at recordingChunkBytes. */
const recordingFlushMs = 1_000;
const recordingChunkBytes = 256 * 1024;
/** Chunk rows read at once while a recording is served. */
const recordingReadBatch = 8;

function presentRecording(row: DesktopRecordingRow): DesktopRecordingInfo {
  return {
    id: row.id,
    session_id: row.session_id,
    asset_id: row.asset_id,
    owner_type: ownerOfRow(row).owner_type,
    owner: row.owner_id,
    started_at: row.started_at,
    ended_at: row.ended_at,
    bytes: row.bytes,
  };
}

/** One attach's recording: the recorder the console feeds, and what to do when the attach ends. */
interface DesktopRecording {
  recorder: DesktopRecorder;
  finish(): Promise<void>;
}

export interface DesktopRecordings {
  /** Starts recording an attach when recording is on (and names it on `s`); null when it is off. */
  start(s: ConsoleTarget): Promise<DesktopRecording | null>;
  /** The recordings this principal may see: its own, or every one for an admin. */
  list(principal: Principal): Promise<DesktopRecordingInfo[]>;
  /** The recording's bytes, after the ownership check; audited. `length` when known. */
  open(
    ctx: ActionContext,
    recordingId: string,
  ): Promise<{ info: DesktopRecordingInfo; body: Readable; length: number | null }>;
  /** Deletes at most `limit` recordings started before `cutoff`, their files with them. */
  purge(cutoff: string, limit: number): Promise<number>;
}

export function createDesktopRecordings(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  logger: Logger;
  dataDir: string;
  recordingEnabled: () => boolean;
}): DesktopRecordings {
  const { db, audit, events } = deps;
  const recordingsDir = path.join(deps.dataDir, 'recordings', 'desktop');
  const recordingFile = (id: string) => path.join(recordingsDir, `${id}.svcrfb`);

  /** Chunk rows read a batch at a time; a file left by a hub from before migration 0020 read as it is. */
  const recordingBody = async (id: string): Promise<{ body: Readable; length: number | null } | null> => {
    const file = recordingFile(id);
    if (fs.existsSync(file)) return { body: fs.createReadStream(file), length: fs.statSync(file).size };
    const first = await readDesktopChunks(db, id, 0, recordingReadBatch);
    if (first.length === 0) return null;
    async function* chunks(): AsyncGenerator<Buffer> {
      let batch = first;
      while (batch.length > 0) {
        for (const chunk of batch) yield chunk.data;
        const next = (batch.at(-1)?.seq ?? 0) + 1;
        if (batch.length < recordingReadBatch) return;
        batch = await readDesktopChunks(db, id, next, recordingReadBatch);
      }
    }
    return { body: Readable.from(chunks()), length: null };
  };

  return {
    start: (s) => startDesktopRecording(deps, s),

    async list(principal) {
      const owner = ownerOf(principal);
      if (!isAdmin(principal) && owner === null) return [];
      const rows = await listDesktopRecordings(
        db,
        isAdmin(principal) ? null : owner,
        desktopSessionLimits.recordingsListed,
      );
      return rows.filter((r) => mayUseSession(principal, r)).map(presentRecording);
    },

    async open(ctx, recordingId) {
      const row = await findDesktopRecording(db, recordingId);
      // Another owner's recording is as absent as an unknown id.
      if (!row || !mayUseSession(ctx.principal, row))
        throw new HubError('not_found', `no desktop recording ${recordingId}`);
      const body = await recordingBody(row.id);
      if (!body) throw new HubError('not_found', `desktop recording ${recordingId} has no data`);
      await audit.recordIntent(ctx, [
        {
          action: 'desktop.recording_accessed',
          targetType: 'desktop_recording',
          targetId: row.id,
          assetId: row.asset_id,
        },
      ]);
      events.publish('desktop.recording_accessed', {
        asset_ids: [row.asset_id],
        recording_id: row.id,
        session_id: row.session_id,
        asset_id: row.asset_id,
      });
      return { info: presentRecording(row), ...body };
    },

    async purge(cutoff, limit) {
      const old = await listDesktopRecordingsBefore(db, cutoff, limit);
      for (const row of old) fs.rmSync(recordingFile(row.id), { force: true });
      await deleteDesktopRecordings(
        db,
        old.map((r) => r.id),
      );
      return old.length;
    },
  };
}

/**
 * A recorder storing its bytes in the database (decision 0043: every process reads them, and they outlive
 * this one), and what to do when the attach ends. Pieces are buffered and stored as one chunk row about
 * every second or every recordingChunkBytes; a failed write ends the recording there.
 */
async function startDesktopRecording(
  deps: {
    db: Kysely<Database>;
    clock: Clock;
    logger: Logger;
    recordingEnabled: () => boolean;
  },
  s: ConsoleTarget,
): Promise<DesktopRecording | null> {
  const { db, clock, logger } = deps;
  if (!deps.recordingEnabled()) return null;
  const id = newId('desktopRecording');
  await insertDesktopRecording(db, {
    id,
    session_id: s.id,
    asset_id: s.assetId,
    ...s.owner,
    started_at: clock.now().toISOString(),
    ended_at: null,
    bytes: 0,
  });
  let bytes = 0;
  let stored = 0;
  let seq = 0;
  let failed = false;
  let buffered: Buffer[] = [];
  let bufferedBytes = 0;
  let writing: Promise<void> = Promise.resolve();
  const flush = (): Promise<void> => {
    if (bufferedBytes === 0 || failed) return writing;
    const data = Buffer.concat(buffered);
    buffered = [];
    bufferedBytes = 0;
    const n = seq++;
    writing = writing
      .then(async () => {
        if (failed) return;
        await appendDesktopChunk(db, id, n, data);
        stored += data.length;
      })
      .catch((error: unknown) => {
        failed = true;
        logger.error({ err: error, recording_id: id }, 'desktop: storing a recording failed; it stops here');
      });
    return writing;
  };
  const timer = setInterval(() => {
    void flush();
  }, recordingFlushMs);
  timer.unref();
  const recorder = new DesktopRecorder({
    startedAt: clock.now(),
    now: () => performance.now(),
    maxBytes: desktopRecordingMaxBytes,
    write: (piece) => {
      if (failed) return;
      bytes += piece.length;
      buffered.push(Buffer.from(piece));
      bufferedBytes += piece.length;
      if (bufferedBytes >= recordingChunkBytes) void flush();
    },
  });
  s.recordingId = id;
  const finish = async () => {
    clearInterval(timer);
    await flush();
    // Nothing recorded (the handshake failed, or an encrypting security type): no recording to list.
    if (stored === 0) await deleteDesktopRecording(db, id);
    else await finishDesktopRecording(db, id, clock.now().toISOString(), stored);
    if (recorder.stoppedBecause && bytes === 0)
      logger.info({ recording_id: id, reason: recorder.stoppedBecause }, 'desktop attach not recorded');
  };
  return { recorder, finish };
}
