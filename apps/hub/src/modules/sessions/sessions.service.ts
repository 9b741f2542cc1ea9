/**
 * Remote sessions (issue 16): create a terminal on an asset through its agent's `pty` stream, list and
 * close them, attach browsers (live-sessions.ts), and the recordings. Every check runs here: the policy
 * `policy.interactive_enabled` at create and at every attach (read live from RuntimeSettings), the one
 * ownership rule (access/session-access.ts), the asset's visibility and the hub-host rule, the asset online.
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Kysely } from 'kysely';
import {
  newId,
  sessionCloseCodes,
  sessionLimits,
  type Recording,
  type Session,
  type SessionCreate,
} from '@svc/protocol';
import { isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import { agentFailure, clusterRetryAfterSeconds } from '../../agents/agent-call.js';
import type { AgentStreams } from '../../agents/agent-gateway.js';
import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import type { UpgradeRecheck } from '../../http/upgrade.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import { interactiveTurnedOff, policyDisabled } from '../../platform/policy-error.js';
import type { AuditService } from '../audit/audit.service.js';
import { ClusterUnavailableError } from '../../platform/cluster/cluster-bus.js';
import { alwaysHeldLease, type NodeLease } from '../../platform/cluster/node-registry.js';
import { createLocalOwnedStates, type OwnedStates } from '../../platform/cluster/owned-state.js';
import { createLiveSessions, type AttachRecheck, type SessionLimits } from './live-sessions.js';
import { createSessionRelay } from './session-relay.js';
import { createSessionView, liveValuesOf, type LiveValues } from './session-view.js';
import { AsciicastRecorder } from './recorder.js';
import {
  isSessionOwner,
  mayUseSession,
  ownerOf,
  whyMayNotUseSession,
  type Owned,
} from '../../access/session-access.js';
import {
  appendChunk,
  deleteRecording,
  endLiveSessions,
  endOwnedSession,
  endSessionsOfNode,
  findRecording,
  findSession,
  insertRecording,
  insertSession,
  listRecordings,
  listSessions,
  readChunks,
  updateRecording,
  updateSession,
  type RecordingRow,
  type RemoteSessionRow,
} from './sessions.repository.js';

export interface SessionService {
  create(ctx: ActionContext, assetId: string, input: SessionCreate): Promise<Session>;
  list(ctx: ActionContext, state: 'live' | 'ended' | undefined, page: PageRequest): Promise<Page<Session>>;
  get(ctx: ActionContext, id: string): Promise<Session>;
  close(ctx: ActionContext, id: string): Promise<Session>;
  /**
   * Checks policy and ownership for an attach; throws the HubError the upgrade is refused with. Resolves
   * with where the session lives: here, or on another live hub process (decision 0043).
   */
  checkAttach(principal: Principal, id: string): Promise<AttachTarget>;
  /** `recheck`: the route's checks, run again with the caller's new principal when its key changes. */
  attach(
    principal: Principal,
    target: AttachTarget,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: UpgradeRecheck,
  ): void;
  /**
   * `policy.interactive_enabled` was turned off: every browser attached through this process is closed (4003);
   * new attaches are refused anyway, and the sessions end after their detach grace.
   */
  detachAll(): void;
  recordings(ctx: ActionContext, page: PageRequest): Promise<Page<Recording>>;
  recording(ctx: ActionContext, id: string): Promise<Recording>;
  /** The `.cast` text of a recording (audited as an access). */
  recordingCast(ctx: ActionContext, id: string): Promise<{ recording: Recording; text: string }>;
  deleteRecording(ctx: ActionContext, id: string): Promise<Recording>;
  liveCount(): number;
  /** A hub process is gone (the registry tells one survivor): its live sessions ended with it. */
  onNodeGone(nodeId: string): Promise<void>;
  /**
   * This process lost its lease and registered again (decision 0053): its sessions that the others ended
   * meanwhile (their rows say so) end here too; the others go on.
   */
  leaseRegained(): Promise<void>;
  start(): void;
  close_(): Promise<void>;
}

/** Where an attach goes: the session here (`node` null), or its owner node; and whose it is. */
interface AttachTarget {
  id: string;
  assetId: string;
  node: string | null;
  cols: number;
  rows: number;
  owned: Owned;
}

export interface SessionServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  events: EventBus;
  /** Live settings (RuntimeSettings), read at each use so a change applies at once. */
  settings: {
    interactiveEnabled(): boolean;
    recordingEnabled(): boolean;
    detachGraceSeconds(): number;
    idleTimeoutMinutes(): number;
  };
  agentCalls: AgentCaller;
  streams: AgentStreams;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  /** Spends a device-owner proof sent with a create (the mobile module's DeviceOwnerService; decision 0033). */
  deviceOwner: { spend(principal: Principal, purpose: string, proof: string): void };
  limits?: Partial<SessionLimits>;
  sweepMs?: number;
  /**
   * The other hub processes (decision 0043): sessions name the node that owns them, an attach or a close of
   * another live node's session is relayed to it. A cluster of one when absent.
   */
  cluster?: OwnedStates;
  /** This process's lease (decision 0053): the owner's end of a session is fenced by it. */
  lease?: NodeLease;
}

/** Sweeps (grace, idle, slow clients) and recording flushes run this often. */
const sweepDefaultMs = 1_000;

/**
 * A session as the caller sees it: the row, with the live values (`live`, from this process or the owner's)
 * while it runs; `stale` when it is live but no process could say how it is now (decision 0043).
 */
function presentSession(row: RemoteSessionRow, live: LiveValues | undefined, stale = false): Session {
  return {
    id: row.id,
    kind: row.kind === 'desktop' ? 'desktop' : 'terminal',
    asset_id: row.asset_id,
    owner_type: row.owner_type === 'api_key' ? 'api_key' : 'session',
    owner_id: row.owner_id,
    state: row.state === 'live' ? 'live' : 'ended',
    cols: live?.cols ?? row.cols,
    rows: live?.rows ?? row.rows,
    attached: live?.attached ?? 0,
    stale,
    created_at: row.created_at,
    last_activity_at: live?.last_activity_at ?? row.last_activity_at,
    ended_at: row.ended_at,
    end_reason: row.end_reason,
    exit_code: row.exit_code,
    recording_id: row.recording_id,
  };
}

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

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { db, clock, logger, audit, events, settings, agentCalls } = deps;
  const limits = { ...sessionLimits, ...deps.limits };
  let timer: NodeJS.Timeout | null = null;
  /** Sessions created before this process started were live in another one. */
  const startedAt = clock.now().toISOString();
  const cluster = deps.cluster ?? createLocalOwnedStates(logger);
  const { bus, registry } = cluster;
  const lease = deps.lease ?? alwaysHeldLease();
  const nodeId = bus.nodeId;

  /** The live node that owns a live session, when it is not this one. */
  function remoteOwner(row: RemoteSessionRow): string | null {
    if (!bus.shared || row.state !== 'live' || row.node_id === null || row.node_id === nodeId) return null;
    return registry.isLive(row.node_id) ? row.node_id : null;
  }

  function sessionNotFound(id: string): HubError {
    return new HubError('not_found', `no session ${id}`);
  }

  /** The session row if the caller may use it; the same 404 as an unknown id otherwise. */
  async function loadOwned(principal: Principal, id: string): Promise<RemoteSessionRow> {
    const row = await findSession(db, id);
    if (!row || !mayUseSession(principal, row)) throw sessionNotFound(id);
    return row;
  }

  async function loadRecording(principal: Principal, id: string): Promise<RecordingRow> {
    const row = await findRecording(db, id);
    if (!row || !mayUseSession(principal, row)) throw new HubError('not_found', `no recording ${id}`);
    return row;
  }

  function ownerFilter(principal: Principal) {
    if (isAdmin(principal)) return null;
    return ownerOf(principal) ?? { owner_type: 'none', owner_id: 'none' };
  }

  const live = createLiveSessions({
    now: () => clock.now().getTime(),
    credentials: deps.credentials,
    ...(deps.limits ? { limits: deps.limits } : {}),
    onEnded(session, end) {
      const now = clock.now().toISOString();
      void (async () => {
        try {
          await session.recorder?.flush();
          const row = await findSession(db, session.id);
          const written = await db.transaction().execute(async (trx) => {
            const owned = await endOwnedSession(
              trx,
              session.id,
              {
                state: 'ended',
                ended_at: now,
                end_reason: end.reason.slice(0, 256),
                exit_code: end.exitCode,
                cols: session.cols,
                rows: session.rows,
                last_activity_at: new Date(session.lastActivity).toISOString(),
              },
              lease.fence(),
            );
            // Ended already by the survivors of this process's stall (or its lease ran out): theirs stands.
            if (!owned) return false;
            if (row?.recording_id) {
              await updateRecording(trx, row.recording_id, {
                ended_at: now,
                ...(session.recorder
                  ? { size_bytes: session.recorder.bytes, truncated: session.recorder.isTruncated ? 1 : 0 }
                  : {}),
              });
            }
            await audit.record(trx, null, {
              action: 'session.ended',
              targetType: 'session',
              targetId: session.id,
              detail: { asset_id: session.assetId, reason: end.reason, exit_code: end.exitCode },
            });
            return true;
          });
          if (!written && !(await lease.holds())) lease.refused('terminal session end');
          events.publish('session.ended', {
            asset_ids: [session.assetId],
            session_id: session.id,
            kind: session.kind,
            reason: end.reason.slice(0, 256),
            exit_code: end.exitCode,
          });
        } catch (error) {
          logger.error({ err: error, session_id: session.id }, 'recording a session end failed');
        }
      })();
    },
    onAttached(session, principal) {
      auditAttach(principal, 'session.attached', session.id, session.assetId);
    },
    onDetached(session, principal) {
      auditAttach(principal, 'session.detached', session.id, session.assetId);
    },
  });

  function auditAttach(
    principal: Principal,
    action: 'session.attached' | 'session.detached',
    id: string,
    assetId: string,
  ): void {
    void audit
      .recordIntent({ principal, requestId: null, ip: null }, [
        { action, targetType: 'session', targetId: id, detail: { asset_id: assetId } },
      ])
      .then(() => {
        events.publish(action, { asset_ids: [assetId], session_id: id, kind: 'terminal' });
      })
      .catch((error: unknown) => {
        logger.error({ err: error, session_id: id }, `auditing a ${action} failed`);
      });
  }
  /** Attaches relayed to the owner process; this side audits them as a local attach is. */
  const relay = createSessionRelay({
    owned: cluster,
    logger,
    live,
    credentials: deps.credentials,
    ...(deps.limits ? { limits: deps.limits } : {}),
    onAttached: (principal, session) => {
      auditAttach(principal, 'session.attached', session.id, session.assetId);
    },
    onDetached: (principal, session) => {
      auditAttach(principal, 'session.detached', session.id, session.assetId);
    },
  });

  /** The live values of other processes' sessions, asked of their owners (decision 0043). */
  const view = createSessionView({ owned: cluster, logger, live });

  /** This process's own live session's values. */
  function localValues(id: string): LiveValues | undefined {
    const session = live.get(id);
    return session ? liveValuesOf(session) : undefined;
  }

  /**
   * Rows the caller may see, with the live values wherever they run: this process's own from memory, another
   * live process's asked of it (one question per owner, all at once). A live row no process answers for is
   * shown as stored, marked stale.
   */
  async function presentAll(rows: RemoteSessionRow[]): Promise<Session[]> {
    const byOwner = new Map<string, string[]>();
    for (const row of rows) {
      if (live.get(row.id)) continue;
      const owner = remoteOwner(row);
      if (owner === null) continue;
      const ids = byOwner.get(owner);
      if (ids) ids.push(row.id);
      else byOwner.set(owner, [row.id]);
    }
    const answered = new Map<string, Map<string, LiveValues>>();
    await Promise.all(
      [...byOwner].map(async ([owner, ids]) => {
        const values = await view.ask(owner, ids);
        if (values) answered.set(owner, values);
      }),
    );
    return rows.map((row) => {
      const own = localValues(row.id);
      // Ended, or ended here a moment ago (its row is being written): the row is the truth.
      if (own || row.state !== 'live' || row.node_id === nodeId) return presentSession(row, own);
      const owner = remoteOwner(row);
      const values = owner === null ? undefined : answered.get(owner);
      // The owner answered: the session is live there (values), or it just ended (the row follows).
      if (values) return presentSession(row, values.get(row.id));
      return presentSession(row, undefined, true);
    });
  }

  async function sweep(): Promise<void> {
    live.sweep(settings.detachGraceSeconds() * 1000, settings.idleTimeoutMinutes() * 60_000);
    for (const id of liveIds()) {
      const session = live.get(id);
      if (session?.recorder) await session.recorder.flush();
    }
  }

  const ids = new Set<string>();
  function liveIds(): string[] {
    for (const id of [...ids]) if (!live.get(id)) ids.delete(id);
    return [...ids];
  }

  return {
    async create(ctx, assetId, input) {
      if (!settings.interactiveEnabled()) throw policyDisabled('policy.interactive_enabled');
      if (ctx.principal.role === 'viewer')
        throw new HubError('read_only_role', 'The viewer role cannot open sessions.');
      if (input.kind === 'desktop')
        throw new HubError(
          'not_implemented',
          'Desktop sessions are opened with POST /api/v2/assets/{id}/desktop/sessions (decision 0030).',
        );
      const owner = ownerOf(ctx.principal);
      if (!owner) throw new HubError('forbidden', 'Sessions need a user or an API key as their owner.');
      // Spent first, whatever follows: a proof opens at most one attempt (decision 0033).
      if (input.device_proof !== undefined)
        deps.deviceOwner.spend(ctx.principal, `session:terminal:${assetId}`, input.device_proof);
      const asset = await agentCalls.loadAsset(ctx.principal, assetId, 'exec.run');
      agentCalls.requireOnline(asset);
      if (live.size >= limits.perHub)
        throw new HubError('unavailable', `this hub already runs ${limits.perHub} sessions`);
      const mine = await listSessions(db, { owner, state: 'live' }, { limit: 1, offset: 0 });
      if (mine.total >= limits.perOwner)
        throw new HubError('conflict', `you already have ${limits.perOwner} live sessions; close one first`);

      const id = newId('remoteSession');
      const cols = input.cols ?? 80;
      const rows = input.rows ?? 24;
      const nowDate = clock.now();
      const now = nowDate.toISOString();
      const recordingId = settings.recordingEnabled() ? newId('recording') : null;
      const row: RemoteSessionRow = {
        id,
        kind: 'terminal',
        asset_id: asset.id,
        ...owner,
        state: 'live',
        cols,
        rows,
        created_at: now,
        last_activity_at: now,
        ended_at: null,
        end_reason: null,
        exit_code: null,
        recording_id: recordingId,
        node_id: nodeId,
      };
      await db.transaction().execute(async (trx) => {
        await insertSession(trx, row);
        if (recordingId) {
          await insertRecording(trx, {
            id: recordingId,
            session_id: id,
            asset_id: asset.id,
            ...owner,
            size_bytes: 0,
            truncated: 0,
            created_at: now,
            ended_at: null,
          });
        }
        await audit.record(trx, ctx, {
          action: 'session.started',
          targetType: 'session',
          targetId: id,
          detail: { asset_id: asset.id, kind: 'terminal', recorded: recordingId !== null },
        });
      });
      const recorder = recordingId
        ? new AsciicastRecorder(
            {
              append: (seq, data, size, truncated) =>
                db.transaction().execute(async (trx) => {
                  await appendChunk(trx, recordingId, seq, data);
                  await updateRecording(trx, recordingId, { size_bytes: size, truncated: truncated ? 1 : 0 });
                }),
            },
            nowDate.getTime(),
            limits.recordingBytes,
            { cols, rows },
            (error) => {
              logger.error({ err: error, recording_id: recordingId }, 'writing a recording failed');
            },
          )
        : null;
      const callbacks = live.register({ id, assetId: asset.id, cols, rows, recorder });
      try {
        const handle = await deps.streams.openStream(asset.id, {
          kind: 'pty',
          params: { cols, rows },
          onData: callbacks.onData,
          onClose: callbacks.onClose,
        });
        callbacks.opened(handle);
        ids.add(id);
      } catch (error) {
        live.discard(id);
        const ended = clock.now().toISOString();
        await updateSession(db, id, {
          state: 'ended',
          ended_at: ended,
          end_reason: 'the terminal did not open',
        });
        if (recordingId) await updateRecording(db, recordingId, { ended_at: ended });
        throw agentFailure(error, asset, 'exec.run');
      }
      events.publish('session.started', { asset_ids: [asset.id], session_id: id, kind: 'terminal' });
      return presentSession(row, localValues(id));
    },

    async list(ctx, state, page) {
      const result = await listSessions(db, { owner: ownerFilter(ctx.principal), state }, pageWindow(page));
      const visible = result.rows.filter((row) => mayUseSession(ctx.principal, row));
      return toPage(await presentAll(visible), result.total, page);
    },

    async get(ctx, id) {
      const row = await loadOwned(ctx.principal, id);
      const [session] = await presentAll([row]);
      if (!session) throw sessionNotFound(id);
      return session;
    },

    async close(ctx, id) {
      const row = await loadOwned(ctx.principal, id);
      const owner = live.get(id) ? null : remoteOwner(row);
      if (row.state !== 'live' || (!live.get(id) && owner === null)) {
        throw new HubError('conflict', `session ${id} has already ended`);
      }
      await audit.recordIntent(ctx, [
        { action: 'session.closed', targetType: 'session', targetId: id, detail: { asset_id: row.asset_id } },
      ]);
      if (owner === null) live.end(id, 'closed by the user');
      else {
        const ended = await relay.end(owner, id, 'closed by the user').catch((error: unknown) => {
          // Not "already ended": the owner may well run it, it cannot be reached from here now.
          if (error instanceof ClusterUnavailableError)
            throw new HubError(
              'cluster_unavailable',
              `session ${id} runs on another hub process, and the hub processes cannot reach each other right now (the cluster bus is down); retry in ${String(clusterRetryAfterSeconds)} s`,
              { headers: { 'Retry-After': String(clusterRetryAfterSeconds) } },
            );
          logger.warn({ err: error, session_id: id, node: owner }, 'ending a session on its owner failed');
          return false;
        });
        if (!ended) throw new HubError('conflict', `session ${id} has already ended`);
      }
      return { ...presentSession(row, undefined), state: 'ended', end_reason: 'closed by the user' };
    },

    async checkAttach(principal, id) {
      const row = await loadOwned(principal, id);
      if (!settings.interactiveEnabled()) throw policyDisabled('policy.interactive_enabled');
      const owned = { asset_id: row.asset_id, owner_type: row.owner_type, owner_id: row.owner_id };
      const target = { id, assetId: row.asset_id, cols: row.cols, rows: row.rows, owned };
      if (row.state === 'live' && live.get(id)) return { ...target, node: null };
      // Another process's session: the same checks passed here, the owner relays it (decision 0043).
      const owner = remoteOwner(row);
      if (owner === null) throw new HubError('conflict', `session ${id} has ended`);
      return { ...target, node: owner };
    },

    attach(principal, target, request, socket, head, recheck) {
      // Checked again when the caller's key changes (decision 0049): the route's checks, then the one rule.
      const attachRecheck: AttachRecheck = (next) => {
        const why = recheck(next)?.message ?? whyMayNotUseSession(next, target.owned);
        return why === null ? null : { why, endsSession: isSessionOwner(next, target.owned) };
      };
      if (target.node === null) live.attach(target.id, principal, request, socket, head, attachRecheck);
      else relay.attach(target.node, target, principal, request, socket, head, attachRecheck);
    },

    detachAll() {
      live.detachAll(sessionCloseCodes.policyDisabled, interactiveTurnedOff);
      relay.detachAll(sessionCloseCodes.policyDisabled, interactiveTurnedOff);
    },

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

    liveCount: () => live.size,

    async leaseRegained() {
      for (const id of liveIds()) {
        const row = await findSession(db, id);
        if (row?.state !== 'live') live.end(id, 'this hub process lost its lease; the session was ended');
      }
    },

    async onNodeGone(gone) {
      const ended = await endSessionsOfNode(db, gone, clock.now().toISOString(), 'its hub process went away');
      if (ended > 0)
        logger.warn({ sessions: ended, node: gone }, 'sessions of a hub process that is gone ended');
    },

    start() {
      relay.start();
      // Alone, every session from before this start ended; in a cluster, only those of nodes that are gone.
      const liveNodes = bus.shared ? [...registry.liveNodes()] : null;
      endLiveSessions(db, startedAt, 'the hub restarted', liveNodes).then(
        (ended) => {
          if (ended > 0)
            logger.info({ sessions: ended }, 'sessions of the previous hub process marked ended');
        },
        (error: unknown) => {
          logger.error({ err: error }, 'marking the previous process sessions ended failed');
        },
      );
      timer = setInterval(() => {
        sweep().catch((error: unknown) => {
          logger.error({ err: error }, 'session sweep failed');
        });
      }, deps.sweepMs ?? sweepDefaultMs);
      timer.unref();
    },

    async close_() {
      if (timer) clearInterval(timer);
      timer = null;
      live.closeAll('the hub is shutting down');
      relay.close('the hub process relaying the session is shutting down');
      await new Promise((r) => setTimeout(r, 50));
    },
  };
}
