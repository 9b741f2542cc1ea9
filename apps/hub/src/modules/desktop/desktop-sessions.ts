/**
 * Desktop sessions (issue 16, decision 0030). A session is created for an asset (policy, scope, online
 * checks; the desktop password released once in the answer), then attached by its owner or an admin over a
 * WebSocket relayed to a `tcp` channel stream to the machine's own VNC server. `policy.interactive_enabled` is
 * checked at the create and at every attach (spec 5.5.3). One console at a time: a new attach replaces the
 * previous one. A session with no console ends after its idle timeout; sessions live in memory (the VNC
 * server keeps the desktop itself). Each attach is recorded, when recording is on, into the database (chunk
 * rows, decision 0043: any hub process serves it, after the recording one is gone); recordings are listed and
 * served by id to their recorder and to admins (spec 5.5.1).
 */
import fs from 'node:fs';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import { Readable, type Duplex } from 'node:stream';
import {
  DesktopRecorder,
  desktopRecordingMaxBytes,
  newId,
  type DesktopRecordingInfo,
  type DesktopSession,
  type DesktopSessionCreated,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { WebSocketServer, type WebSocket } from 'ws';
import { canSeeAsset, isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import type { AgentStreams, StreamEnd } from '../../agents/agent-gateway.js';
import { agentFailure, type AgentCaller } from '../../agents/agent-call.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import { policyDisabled } from '../../platform/policy-error.js';
import type { Logger } from '../../platform/logger.js';
import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import { refuseUpgrade } from '../../http/upgrade.js';
import type { AuditService } from '../audit/audit.service.js';
import { startDesktopRelay, type DesktopRelay } from './desktop-relay.js';
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
} from './desktop.repository.js';
import type { DesktopCredentialService } from './desktop.service.js';

/** A recording is stored as one chunk row about this often, or sooner at recordingChunkBytes. */
const recordingFlushMs = 1_000;
const recordingChunkBytes = 256 * 1024;
/** Chunk rows read at once while a recording is served. */
const recordingReadBatch = 8;

const desktopSessionLimits = {
  sessions: 64,
  sessionsPerOwner: 8,
  idleTimeoutS: 300,
  recordingsListed: 500,
} as const;

interface LiveSession {
  id: string;
  assetId: string;
  owner: string;
  createdAt: string;
  relay: DesktopRelay | null;
  idleTimer: NodeJS.Timeout | undefined;
  recordingId: string | null;
}

export interface DesktopSessionService {
  /** `deviceProof`: the mobile app's device-owner proof, spent first for `session:desktop:<asset id>`. */
  create(ctx: ActionContext, assetId: string, deviceProof?: string): Promise<DesktopSessionCreated>;
  list(principal: Principal): DesktopSession[];
  /** The WebSocket upgrade of `desktop.attach`: refuses before the handshake, or relays. */
  attach(principal: Principal, request: IncomingMessage, socket: Duplex, head: Buffer): void;
  close(ctx: ActionContext, sessionId: string): DesktopSession;
  recordings(principal: Principal): Promise<DesktopRecordingInfo[]>;
  /** The recording's bytes, after the ownership check; audited. `length` when known. */
  openRecording(
    ctx: ActionContext,
    recordingId: string,
  ): Promise<{ info: DesktopRecordingInfo; body: Readable; length: number | null }>;
  /** The policy went off: every console attached now is closed (new attaches are refused anyway). */
  detachAll(reason: string): void;
  /** Deletes at most `limit` recordings started before `cutoff`, their files with them. */
  purgeRecordings(cutoff: string, limit: number): Promise<number>;
  closeAll(): void;
}

/** Who a principal is for ownership: the user, or the API key. */
function ownerOf(principal: Principal): string {
  return principal.userId ?? principal.key?.id ?? 'unknown';
}

const sessionIdPattern = /^\/api\/v2\/desktop\/sessions\/(dsk_[0-9a-z]{1,40})\/stream\/?$/;

export function createDesktopSessionService(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  logger: Logger;
  agents: AgentCaller;
  streams: AgentStreams;
  passwords: DesktopCredentialService;
  dataDir: string;
  interactiveEnabled: () => boolean;
  recordingEnabled: () => boolean;
  /** Tells an attach that its key or console session ended: the desktop closes (4001). */
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  /** The mobile module's proofs (decision 0033); without it any proof sent is refused. */
  deviceOwner?: { spend(principal: Principal, purpose: string, proof: string): void };
}): DesktopSessionService {
  const { db, clock, audit, events, logger, agents } = deps;
  const sessions = new Map<string, LiveSession>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const recordingsDir = path.join(deps.dataDir, 'recordings', 'desktop');
  const recordingFile = (id: string) => path.join(recordingsDir, `${id}.svcrfb`);

  const requireInteractive = () => {
    if (!deps.interactiveEnabled()) throw policyDisabled('policy.interactive_enabled');
  };

  const present = (s: LiveSession): DesktopSession => ({
    id: s.id,
    asset_id: s.assetId,
    owner: s.owner,
    created_at: s.createdAt,
    idle_timeout_s: desktopSessionLimits.idleTimeoutS,
    stream_path: `/api/v2/desktop/sessions/${s.id}/stream`,
    attached: s.relay !== null,
    recording_id: s.recordingId,
  });

  const mayUse = (principal: Principal, s: LiveSession) =>
    canSeeAsset(principal, s.assetId) && (isAdmin(principal) || ownerOf(principal) === s.owner);

  /** The session, if this principal may use it; otherwise the same 404 as an unknown id. */
  const sessionFor = (principal: Principal, id: string): LiveSession => {
    const s = sessions.get(id);
    if (!s || !mayUse(principal, s)) throw new HubError('not_found', `no desktop session ${id}`);
    return s;
  };

  const end = (s: LiveSession, reason: string) => {
    if (!sessions.delete(s.id)) return;
    clearTimeout(s.idleTimer);
    s.relay?.close(reason);
    events.publish('desktop.session_ended', {
      asset_ids: [s.assetId],
      session_id: s.id,
      asset_id: s.assetId,
      owner: s.owner,
      reason: reason.slice(0, 200),
    });
  };

  const armIdle = (s: LiveSession) => {
    clearTimeout(s.idleTimer);
    s.idleTimer = setTimeout(() => {
      end(s, 'idle timeout');
    }, desktopSessionLimits.idleTimeoutS * 1000);
    s.idleTimer.unref();
  };

  /**
   * A recorder storing its bytes in the database (decision 0043: every process reads them, and they outlive
   * this one), and what to do when the attach ends. Pieces are buffered and stored as one chunk row about
   * every second or every recordingChunkBytes; a failed write ends the recording there.
   */
  const startRecording = async (s: LiveSession) => {
    if (!deps.recordingEnabled()) return null;
    const id = newId('desktopRecording');
    await insertDesktopRecording(db, {
      id,
      session_id: s.id,
      asset_id: s.assetId,
      owner: s.owner,
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
          logger.error(
            { err: error, recording_id: id },
            'desktop: storing a recording failed; it stops here',
          );
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
  };

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

  const watchCredential = (principal: Principal, onEnd: () => void): (() => void) => {
    if (principal.key) return deps.credentials.onCredentialEnded(principal.key, onEnd);
    if (principal.sessionId !== undefined)
      return deps.credentials.onSessionEnded(
        { id: principal.sessionId, userId: principal.userId, expiresAt: principal.sessionExpiresAt ?? null },
        onEnd,
      );
    return () => undefined;
  };

  const relayTo = async (principal: Principal, s: LiveSession, socket: WebSocket) => {
    s.relay?.close('replaced by a new console');
    clearTimeout(s.idleTimer);
    const recording = await startRecording(s).catch((error: unknown) => {
      logger.error({ err: error }, 'desktop: cannot start a recording; the session goes on unrecorded');
      return null;
    });
    let current: DesktopRelay | null = null;
    const unwatch = watchCredential(principal, () => {
      current?.close('the credential ended');
    });
    const onEnd = (result: StreamEnd) => {
      unwatch();
      if (s.relay === current) s.relay = null;
      if (sessions.has(s.id)) armIdle(s);
      logger.info({ session_id: s.id, reason: result.reason, by: result.by }, 'desktop console detached');
      recording?.finish().catch((error: unknown) => {
        logger.error({ err: error }, 'desktop: finishing a recording failed');
      });
    };
    try {
      current = await startDesktopRelay({
        socket,
        recorder: recording?.recorder ?? null,
        openStream: (callbacks) =>
          deps.streams.openStream(s.assetId, { kind: 'tcp', params: {}, ...callbacks }),
        onEnd,
      });
      s.relay = current;
    } catch (error) {
      const row = { id: s.assetId, name: s.assetId, last_seen_at: null };
      const failure = agentFailure(error, row, 'exec.run');
      const message = failure instanceof Error ? failure.message : 'the desktop could not be opened';
      socket.close(4000, message.slice(0, 120));
      onEnd({ reason: message, by: 'agent', exit: null });
    }
  };

  return {
    async create(ctx, assetId, deviceProof) {
      requireInteractive();
      // Spent first, whatever follows: a proof opens at most one attempt (decision 0033).
      if (deviceProof !== undefined) {
        if (!deps.deviceOwner) throw new HubError('forbidden', 'this hub checks no device-owner proofs');
        deps.deviceOwner.spend(ctx.principal, `session:desktop:${assetId}`, deviceProof);
      }
      const row = await agents.loadAsset(ctx.principal, assetId, 'exec.run');
      agents.requireOnline(row);
      const owner = ownerOf(ctx.principal);
      if (sessions.size >= desktopSessionLimits.sessions)
        throw new HubError(
          'conflict',
          `the hub holds ${desktopSessionLimits.sessions} desktop sessions already`,
        );
      if (
        [...sessions.values()].filter((s) => s.owner === owner).length >=
        desktopSessionLimits.sessionsPerOwner
      )
        throw new HubError(
          'conflict',
          `you hold ${desktopSessionLimits.sessionsPerOwner} desktop sessions already; close one first`,
        );
      const s: LiveSession = {
        id: newId('desktopSession'),
        assetId: row.id,
        owner,
        createdAt: clock.now().toISOString(),
        relay: null,
        idleTimer: undefined,
        recordingId: null,
      };
      // Released only here, after the policy check above (spec 5.5.2).
      const credentials = await deps.passwords.release(row.id);
      await audit.recordIntent(ctx, [
        {
          action: 'desktop.session_started',
          targetType: 'desktop_session',
          targetId: s.id,
          assetId: row.id,
          detail: { credentials_released: credentials !== null },
        },
      ]);
      sessions.set(s.id, s);
      armIdle(s);
      events.publish('desktop.session_started', {
        asset_ids: [row.id],
        session_id: s.id,
        asset_id: row.id,
        owner,
      });
      return { session: present(s), credentials };
    },

    list(principal) {
      return [...sessions.values()].filter((s) => mayUse(principal, s)).map(present);
    },

    attach(principal, request, socket, head) {
      const refuse = (error: HubError) => {
        refuseUpgrade(socket, error);
      };
      const found = sessionIdPattern.exec((request.url ?? '').split('?')[0] ?? '');
      try {
        if (principal.role === 'viewer')
          throw new HubError('read_only_role', 'viewers cannot attach to a desktop');
        requireInteractive();
        if (!found?.[1]) throw new HubError('not_found', 'no such desktop session');
        const s = sessionFor(principal, found[1]);
        const ctx: ActionContext = { principal, requestId: null, ip: request.socket.remoteAddress ?? null };
        audit
          .recordIntent(ctx, [
            {
              action: 'desktop.session_attached',
              targetType: 'desktop_session',
              targetId: s.id,
              assetId: s.assetId,
            },
          ])
          .then(() => {
            wss.handleUpgrade(request, socket, head, (ws) => {
              events.publish('desktop.session_attached', {
                asset_ids: [s.assetId],
                session_id: s.id,
                asset_id: s.assetId,
                owner: s.owner,
              });
              void relayTo(principal, s, ws);
            });
          })
          .catch((error: unknown) => {
            logger.error({ err: error }, 'desktop: auditing an attach failed; refused');
            refuse(new HubError('internal_error'));
          });
      } catch (error) {
        refuse(error instanceof HubError ? error : new HubError('internal_error'));
      }
    },

    close(ctx, sessionId) {
      const s = sessionFor(ctx.principal, sessionId);
      const view = present(s);
      end(s, 'closed');
      void audit
        .recordIntent(ctx, [
          {
            action: 'desktop.session_ended',
            targetType: 'desktop_session',
            targetId: s.id,
            assetId: s.assetId,
          },
        ])
        .catch((error: unknown) => {
          logger.error({ err: error }, 'desktop: auditing a close failed');
        });
      return { ...view, attached: false };
    },

    async recordings(principal) {
      const rows = await listDesktopRecordings(
        db,
        isAdmin(principal) ? null : ownerOf(principal),
        desktopSessionLimits.recordingsListed,
      );
      return rows.filter((r) => canSeeAsset(principal, r.asset_id));
    },

    async openRecording(ctx, recordingId) {
      const row = await findDesktopRecording(db, recordingId);
      const allowed =
        row !== undefined &&
        canSeeAsset(ctx.principal, row.asset_id) &&
        (isAdmin(ctx.principal) || row.owner === ownerOf(ctx.principal));
      // Another person's recording is as absent as an unknown id.
      if (!row || !allowed) throw new HubError('not_found', `no desktop recording ${recordingId}`);
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
      return { info: row, ...body };
    },

    detachAll(reason) {
      for (const s of sessions.values()) s.relay?.close(reason);
    },

    async purgeRecordings(cutoff, limit) {
      const old = await listDesktopRecordingsBefore(db, cutoff, limit);
      for (const row of old) fs.rmSync(recordingFile(row.id), { force: true });
      await deleteDesktopRecordings(
        db,
        old.map((r) => r.id),
      );
      return old.length;
    },

    closeAll() {
      for (const s of [...sessions.values()]) end(s, 'the hub is stopping');
      wss.close();
    },
  };
}
