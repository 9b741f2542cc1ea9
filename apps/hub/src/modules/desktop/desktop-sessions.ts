/**
 * Desktop sessions (issue 16, decision 0030). A session is created for an asset (policy, scope, online
 * checks; the desktop password released once in the answer), then attached by its owner or an admin over a
 * WebSocket relayed to a `tcp` channel stream to the machine's own VNC server. `policy.interactive_enabled` is
 * checked at the create and at every attach (spec 5.5.3). One console at a time: a new attach replaces the
 * previous one. A session with no console ends after its idle timeout; sessions live in the memory of the
 * process that created them (the VNC server keeps the desktop itself): an attach on another process is checked
 * there and relayed to that owner on the stream relay, as a terminal's is (decision 0058). Each attach is recorded, when recording is on, into the database (chunk
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
import { Type } from 'typebox';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import {
  mayUseSession,
  ownerOf,
  sameOwner,
  whyMayNotUseSession,
  type Owner,
} from '../../access/session-access.js';
import {
  AgentOfflineError,
  type AgentStreamHandle,
  type AgentStreams,
  type OpenStreamOptions,
  type StreamEnd,
} from '../../agents/agent-gateway.js';
import { createStreamRelay } from '../../agents/cluster-streams.js';
import { agentFailure, type AgentCaller } from '../../agents/agent-call.js';
import type { Clock } from '../../platform/clock.js';
import {
  createLocalOwnedStates,
  defineOwnedKind,
  WireId,
  type OwnedStates,
} from '../../platform/cluster/owned-state.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import { policyDisabled } from '../../platform/policy-error.js';
import type { Logger } from '../../platform/logger.js';
import { watchPrincipal, type CredentialLifetime } from '../../http/credential-lifetime.js';
import { refuseUpgrade, withdrawnReason, type UpgradeRecheck } from '../../http/upgrade.js';
import type { AuditService } from '../audit/audit.service.js';
import { desktopCloseCodes, startDesktopRelay, type DesktopRelay } from './desktop-relay.js';
import {
  appendDesktopChunk,
  deleteDesktopRecording,
  deleteDesktopSession,
  deleteDesktopSessionsNotOn,
  deleteDesktopSessionsOf,
  findDesktopSession,
  insertDesktopSession,
  listDesktopSessionsElsewhere,
  type DesktopRecordingRow,
  type DesktopSessionRow,
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

/** What a console needs of its session: whose it is (as terminals say it), which desktop, its recording. */
interface ConsoleTarget {
  id: string;
  assetId: string;
  owner: Owner;
  recordingId: string | null;
}

interface LiveSession extends ConsoleTarget {
  createdAt: string;
  /** Its one console: attached here, or relayed here from another hub process (decision 0058). */
  relay: Pick<DesktopRelay, 'close'> | null;
  idleTimer: NodeJS.Timeout | undefined;
}

/**
 * Desktop sessions as a kind of state owned by one process (decisions 0043, 0058): the owner node is the
 * `desktop_sessions` row's node. A console attached elsewhere is relayed to it on the stream relay (the
 * kind's `open`), as a terminal is; a close elsewhere asks it to end the session.
 */
const desktopKind = defineOwnedKind({
  name: 'desktop',
  requests: {
    end: {
      request: Type.Object({ session_id: WireId }, { additionalProperties: false }),
      reply: Type.Object({ ok: Type.Boolean() }, { additionalProperties: false }),
    },
  },
  notifies: {},
});
const clusterRequestMs = 5_000;

export interface DesktopSessionService {
  /** `deviceProof`: the mobile app's device-owner proof, spent first for `session:desktop:<asset id>`. */
  create(ctx: ActionContext, assetId: string, deviceProof?: string): Promise<DesktopSessionCreated>;
  /** This process's sessions and those other live processes hold. */
  list(principal: Principal): Promise<DesktopSession[]>;
  /**
   * The WebSocket upgrade of `desktop.attach`: refuses before the handshake, or relays; `recheck` runs the
   * route's checks again when the caller's key changes.
   */
  attach(
    principal: Principal,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: UpgradeRecheck,
  ): void;
  close(ctx: ActionContext, sessionId: string): Promise<DesktopSession>;
  recordings(principal: Principal): Promise<DesktopRecordingInfo[]>;
  /** The recording's bytes, after the ownership check; audited. `length` when known. */
  openRecording(
    ctx: ActionContext,
    recordingId: string,
  ): Promise<{ info: DesktopRecordingInfo; body: Readable; length: number | null }>;
  /** The policy went off: every console attached now is closed (4003; new attaches are refused anyway). */
  detachAll(reason: string): void;
  /** Deletes at most `limit` recordings started before `cutoff`, their files with them. */
  purgeRecordings(cutoff: string, limit: number): Promise<number>;
  /** Forgets the sessions of processes that are gone, and answers the other processes. */
  start(): Promise<void>;
  /** A hub process is gone (the registry tells one survivor): its sessions went with it. */
  onNodeGone(nodeId: string): Promise<void>;
  /**
   * This process lost its lease and registered again (decision 0053): its sessions whose rows the others
   * removed meanwhile end here too; the others go on.
   */
  leaseRegained(): Promise<void>;
  /** Ends every session here and forgets them (this process stops). */
  closeAll(): Promise<void>;
}

/** A stored row's owner (migration 0024 wrote every older row as one of the two). */
function ownerOfRow(row: { owner_type: string; owner_id: string }): Owner {
  return { owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session', owner_id: row.owner_id };
}

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
  /** The other hub processes (decision 0043): the owned-state seam; a cluster of one when absent. */
  cluster?: OwnedStates;
}): DesktopSessionService {
  const { db, clock, audit, events, logger, agents } = deps;
  const cluster = deps.cluster ?? createLocalOwnedStates(logger);
  const { bus, registry } = cluster;
  const peers = cluster.kind(desktopKind);
  /** Consoles attached here to sessions other processes own (relayed to their owner). */
  const relayedHere = new Set<DesktopRelay>();
  /** Consoles of sessions here attached on another process: that process applies the policy to them. */
  const attachedElsewhere = new WeakSet<Pick<DesktopRelay, 'close'>>();
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
    owner_type: s.owner.owner_type,
    owner: s.owner.owner_id,
    created_at: s.createdAt,
    idle_timeout_s: desktopSessionLimits.idleTimeoutS,
    stream_path: `/api/v2/desktop/sessions/${s.id}/stream`,
    attached: s.relay !== null,
    recording_id: s.recordingId,
  });

  /** Another process's session as its row shows it (whether a console is attached is the owner's to say). */
  const presentRow = (row: DesktopSessionRow): DesktopSession => ({
    id: row.id,
    asset_id: row.asset_id,
    owner_type: ownerOfRow(row).owner_type,
    owner: row.owner_id,
    created_at: row.created_at,
    idle_timeout_s: desktopSessionLimits.idleTimeoutS,
    stream_path: `/api/v2/desktop/sessions/${row.id}/stream`,
    attached: false,
    recording_id: null,
  });

  /** The row of a session another live process holds, if this principal may use it. */
  const remoteFor = async (principal: Principal, id: string): Promise<DesktopSessionRow> => {
    const row = bus.shared ? await findDesktopSession(db, id) : undefined;
    if (!row || row.node_id === bus.nodeId || !registry.isLive(row.node_id) || !mayUseSession(principal, row))
      throw new HubError('not_found', `no desktop session ${id}`);
    return row;
  };

  /** The one rule terminals follow too (access/session-access.ts): the owner, or an admin. */
  const mayUse = (principal: Principal, s: Pick<ConsoleTarget, 'assetId' | 'owner'>) =>
    mayUseSession(principal, { asset_id: s.assetId, ...s.owner });

  /** The session, if this principal may use it; otherwise the same 404 as an unknown id. */
  const sessionFor = (principal: Principal, id: string): LiveSession => {
    const s = sessions.get(id);
    if (!s || !mayUse(principal, s)) throw new HubError('not_found', `no desktop session ${id}`);
    return s;
  };

  /** `forget` false when the caller removes the rows itself (the hub stopping). */
  const end = (s: LiveSession, reason: string, forget = true) => {
    if (!sessions.delete(s.id)) return;
    clearTimeout(s.idleTimer);
    s.relay?.close(reason);
    if (forget)
      deleteDesktopSession(db, s.id).catch((error: unknown) => {
        logger.error({ err: error, session_id: s.id }, 'desktop: forgetting an ended session failed');
      });
    events.publish('desktop.session_ended', {
      asset_ids: [s.assetId],
      session_id: s.id,
      asset_id: s.assetId,
      owner: s.owner.owner_id,
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
  const startRecording = async (s: ConsoleTarget) => {
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

  /**
   * Why a caller whose key changed may no longer hold the console (decision 0049): the route's checks, then
   * the attach's own; null when it may.
   */
  const whyNotNow = (next: Principal, target: ConsoleTarget, recheck: UpgradeRecheck): string | null => {
    const refused = recheck(next);
    if (refused) return refused.message;
    return whyMayNotUseSession(next, { asset_id: target.assetId, ...target.owner });
  };

  /** Records and relays one console to the session's desktop; `onEnded` once it ends. Null when it failed. */
  const runConsole = async (
    principal: Principal,
    target: ConsoleTarget,
    socket: WebSocket,
    onEnded: (relay: DesktopRelay | null) => void,
    recheck: UpgradeRecheck,
    /** The session's owner when another process: the console is relayed to it, and it records. */
    owner: string | null = null,
  ): Promise<DesktopRelay | null> => {
    const recording =
      owner === null
        ? await startRecording(target).catch((error: unknown) => {
            logger.error({ err: error }, 'desktop: cannot start a recording; the session goes on unrecorded');
            return null;
          })
        : null;
    let current: DesktopRelay | null = null;
    const unwatch = watchPrincipal(
      deps.credentials,
      principal,
      () => {
        current?.close('the credential ended');
      },
      (next) => {
        const why = whyNotNow(next, target, recheck);
        if (why !== null) current?.close(withdrawnReason(why), desktopCloseCodes.accessWithdrawn);
      },
    );
    const onEnd = (result: StreamEnd) => {
      unwatch();
      onEnded(current);
      logger.info(
        { session_id: target.id, reason: result.reason, by: result.by },
        'desktop console detached',
      );
      recording?.finish().catch((error: unknown) => {
        logger.error({ err: error }, 'desktop: finishing a recording failed');
      });
    };
    try {
      current = await startDesktopRelay({
        socket,
        recorder: recording?.recorder ?? null,
        openStream: (callbacks) =>
          owner === null
            ? deps.streams.openStream(target.assetId, { kind: 'tcp', params: {}, ...callbacks })
            : relayed.open(owner, target.id, { kind: 'tcp', params: {}, ...callbacks }),
        onEnd,
      });
      return current;
    } catch (error) {
      const row = { id: target.assetId, name: target.assetId, last_seen_at: null };
      const failure = agentFailure(error, row, 'exec.run');
      const message = failure instanceof Error ? failure.message : 'the desktop could not be opened';
      socket.close(4000, message.slice(0, 120));
      onEnd({ reason: message, by: 'agent', exit: null });
      return null;
    }
  };

  const relayTo = async (
    principal: Principal,
    s: LiveSession,
    socket: WebSocket,
    recheck: UpgradeRecheck,
  ) => {
    s.relay?.close('replaced by a new console');
    clearTimeout(s.idleTimer);
    const relay = await runConsole(
      principal,
      s,
      socket,
      (ended) => {
        if (s.relay === ended) s.relay = null;
        if (sessions.has(s.id) && s.relay === null) armIdle(s);
      },
      recheck,
    );
    if (relay && !relay.stream.closed) s.relay = relay;
  };

  /**
   * A console here on a session another process owns (decisions 0043, 0058): relayed to the owner on the
   * stream relay, as a terminal is. The caller's checks and the watch on its key stay here; the owner runs
   * the desktop stream, records it and keeps the session's one console and idle timer.
   */
  const relayAttach = async (
    principal: Principal,
    row: DesktopSessionRow,
    socket: WebSocket,
    recheck: UpgradeRecheck,
  ) => {
    const target: ConsoleTarget = {
      id: row.id,
      assetId: row.asset_id,
      owner: ownerOfRow(row),
      recordingId: null,
    };
    const relay = await runConsole(
      principal,
      target,
      socket,
      (ended) => {
        if (ended) relayedHere.delete(ended);
      },
      recheck,
      row.node_id,
    );
    if (relay && !relay.stream.closed) relayedHere.add(relay);
  };

  /** The owner's end of a console relayed from another process: the session's desktop stream, recorded here. */
  const consoleStreams: AgentStreams = {
    async openStream<K extends 'pty' | 'tcp'>(
      sessionId: string,
      options: OpenStreamOptions<K>,
    ): Promise<AgentStreamHandle<K>> {
      const s = sessions.get(sessionId);
      if (!s || options.kind !== 'tcp') throw new AgentOfflineError(sessionId);
      s.relay?.close('replaced by a new console');
      clearTimeout(s.idleTimer);
      let stream: AgentStreamHandle<'tcp'> | null = null;
      const slot = {
        close: (reason: string) => {
          stream?.close(reason);
        },
      };
      s.relay = slot;
      attachedElsewhere.add(slot);
      const recording = await startRecording(s).catch((error: unknown) => {
        logger.error({ err: error }, 'desktop: cannot start a recording; the session goes on unrecorded');
        return null;
      });
      const done = () => {
        recording?.finish().catch((error: unknown) => {
          logger.error({ err: error }, 'desktop: finishing a recording failed');
        });
        if (s.relay !== slot) return;
        s.relay = null;
        if (sessions.has(s.id)) armIdle(s);
      };
      try {
        stream = await deps.streams.openStream(s.assetId, {
          kind: 'tcp',
          params: {},
          ...(options.windowBytes !== undefined ? { windowBytes: options.windowBytes } : {}),
          onData: (chunk) => {
            recording?.recorder.fromServer(chunk);
            options.onData(chunk);
          },
          onClose: (streamEnd) => {
            done();
            options.onClose(streamEnd);
          },
        });
      } catch (error) {
        done();
        throw error;
      }
      const opened = stream;
      // Replaced (or ended) while the desktop stream opened.
      if (s.relay !== slot || !sessions.has(s.id)) opened.close('replaced by a new console');
      const handle: AgentStreamHandle<'tcp'> = {
        id: opened.id,
        assetId: opened.assetId,
        kind: 'tcp',
        info: opened.info,
        get closed() {
          return opened.closed;
        },
        get queuedBytes() {
          return opened.queuedBytes;
        },
        write: (chunk) => {
          recording?.recorder.fromClient(chunk);
          return opened.write(chunk);
        },
        resize: () => undefined,
        ack: (bytes) => {
          opened.ack(bytes);
        },
        close: (reason) => {
          opened.close(reason);
        },
      };
      return handle as unknown as AgentStreamHandle<K>;
    },
  };
  const relayed = createStreamRelay({
    owned: cluster,
    kind: desktopKind.def.name,
    local: consoleStreams,
    logger,
  });
  peers.answer('end', (data) => {
    const s = sessions.get(data.session_id);
    if (s) end(s, 'closed');
    return { ok: s !== undefined };
  });

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
      if (!owner)
        throw new HubError('forbidden', 'Desktop sessions need a user or an API key as their owner.');
      if (sessions.size >= desktopSessionLimits.sessions)
        throw new HubError(
          'conflict',
          `the hub holds ${desktopSessionLimits.sessions} desktop sessions already`,
        );
      if (
        [...sessions.values()].filter((s) => sameOwner(s.owner, owner)).length >=
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
      // Where it lives, for the other processes (decision 0043).
      await insertDesktopSession(db, {
        id: s.id,
        asset_id: s.assetId,
        ...owner,
        node_id: bus.nodeId,
        created_at: s.createdAt,
      });
      sessions.set(s.id, s);
      armIdle(s);
      events.publish('desktop.session_started', {
        asset_ids: [row.id],
        session_id: s.id,
        asset_id: row.id,
        owner: owner.owner_id,
      });
      return { session: present(s), credentials };
    },

    async list(principal) {
      const here = [...sessions.values()].filter((s) => mayUse(principal, s)).map(present);
      if (!bus.shared) return here;
      const rows = await listDesktopSessionsElsewhere(db, bus.nodeId, desktopSessionLimits.sessions * 4);
      const elsewhere = rows
        .filter((r) => registry.isLive(r.node_id) && mayUseSession(principal, r))
        .map(presentRow);
      return [...here, ...elsewhere];
    },

    attach(principal, request, socket, head, recheck) {
      const found = sessionIdPattern.exec((request.url ?? '').split('?')[0] ?? '');
      const target = async (): Promise<{ local: LiveSession } | { remote: DesktopSessionRow }> => {
        if (principal.role === 'viewer')
          throw new HubError('read_only_role', 'viewers cannot attach to a desktop');
        requireInteractive();
        if (!found?.[1]) throw new HubError('not_found', 'no such desktop session');
        const local = sessions.get(found[1]);
        if (local) return { local: sessionFor(principal, found[1]) };
        // Held by another process: the same checks, on its row (decision 0043).
        return { remote: await remoteFor(principal, found[1]) };
      };
      target()
        .then(async (to) => {
          const s =
            'local' in to
              ? to.local
              : { id: to.remote.id, assetId: to.remote.asset_id, owner: ownerOfRow(to.remote) };
          const ctx: ActionContext = { principal, requestId: null, ip: request.socket.remoteAddress ?? null };
          await audit
            .recordIntent(ctx, [
              {
                action: 'desktop.session_attached',
                targetType: 'desktop_session',
                targetId: s.id,
                assetId: s.assetId,
              },
            ])
            .catch((error: unknown) => {
              logger.error({ err: error }, 'desktop: auditing an attach failed; refused');
              throw new HubError('internal_error');
            });
          wss.handleUpgrade(request, socket, head, (ws) => {
            events.publish('desktop.session_attached', {
              asset_ids: [s.assetId],
              session_id: s.id,
              asset_id: s.assetId,
              owner: s.owner.owner_id,
            });
            if ('local' in to) void relayTo(principal, to.local, ws, recheck);
            else void relayAttach(principal, to.remote, ws, recheck);
          });
        })
        .catch((error: unknown) => {
          refuseUpgrade(socket, error instanceof HubError ? error : new HubError('internal_error'));
        });
    },

    async close(ctx, sessionId) {
      const local = sessions.get(sessionId);
      let view: DesktopSession;
      let assetId: string;
      if (local) {
        const s = sessionFor(ctx.principal, sessionId);
        view = present(s);
        assetId = s.assetId;
        end(s, 'closed');
      } else {
        const row = await remoteFor(ctx.principal, sessionId);
        const ended = await peers
          .request(row.node_id, 'end', { session_id: row.id }, { timeoutMs: clusterRequestMs })
          .then(
            (reply) => reply.ok,
            () => false,
          );
        if (!ended) throw new HubError('not_found', `no desktop session ${sessionId}`);
        view = presentRow(row);
        assetId = row.asset_id;
      }
      void audit
        .recordIntent(ctx, [
          {
            action: 'desktop.session_ended',
            targetType: 'desktop_session',
            targetId: sessionId,
            assetId,
          },
        ])
        .catch((error: unknown) => {
          logger.error({ err: error }, 'desktop: auditing a close failed');
        });
      return { ...view, attached: false };
    },

    async recordings(principal) {
      const owner = ownerOf(principal);
      if (!isAdmin(principal) && owner === null) return [];
      const rows = await listDesktopRecordings(
        db,
        isAdmin(principal) ? null : owner,
        desktopSessionLimits.recordingsListed,
      );
      return rows.filter((r) => mayUseSession(principal, r)).map(presentRecording);
    },

    async openRecording(ctx, recordingId) {
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

    detachAll(reason) {
      for (const s of sessions.values())
        if (s.relay && !attachedElsewhere.has(s.relay))
          s.relay.close(reason, desktopCloseCodes.policyDisabled);
      for (const c of [...relayedHere]) c.close(reason, desktopCloseCodes.policyDisabled);
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

    async start() {
      relayed.start();
      // Alone, every session row is from an earlier start; in a cluster, those of nodes that are gone.
      const live = bus.shared ? [...registry.liveNodes(), bus.nodeId] : [bus.nodeId];
      const forgotten = await deleteDesktopSessionsNotOn(db, live);
      if (forgotten > 0)
        logger.info({ sessions: forgotten }, 'desktop sessions of stopped hub processes forgotten');
    },

    async onNodeGone(nodeId) {
      await deleteDesktopSessionsOf(db, nodeId);
    },

    async leaseRegained() {
      for (const s of [...sessions.values()]) {
        if (!(await findDesktopSession(db, s.id)))
          end(s, 'this hub process lost its lease; the session was ended');
      }
    },

    async closeAll() {
      relayed.close('the hub is stopping');
      for (const c of [...relayedHere]) c.close('the hub is stopping');
      for (const s of [...sessions.values()]) end(s, 'the hub is stopping', false);
      wss.close();
      // Best effort: a database already gone (or unreachable) leaves the rows to the survivor that is told
      // this node is gone, and to the next start's sweep.
      await deleteDesktopSessionsOf(db, bus.nodeId).catch((error: unknown) => {
        logger.warn({ err: error }, 'desktop: forgetting this process’s sessions at stop failed');
      });
    },
  };
}
