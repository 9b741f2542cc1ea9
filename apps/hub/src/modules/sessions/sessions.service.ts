/**
 * Remote sessions (issue 16): create a terminal on an asset through its agent's `pty` stream, list and
 * close them, attach browsers (live-sessions.ts), and the recordings. Every check runs here: the policy
 * `policy.interactive_enabled` at create and at every attach (read live from RuntimeSettings), the one
 * ownership rule (access/session-access.ts), the asset's visibility and the hub-host rule, the asset online.
 * Around it: session-lifecycle.ts (ends, audits, the sweep), session-present.ts (live values across
 * processes), session-recordings.ts (the recordings).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Kysely } from 'kysely';
import {
  sessionCloseCodes,
  sessionLimits,
  type Recording,
  type Session,
  type SessionCreate,
} from '@svc/protocol';
import { isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import type { AgentCaller } from '../../agents/agent-call.js';
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
import { alwaysHeldLease, type NodeLease } from '../../platform/cluster/node-registry.js';
import { createLocalOwnedStates, type OwnedStates } from '../../platform/cluster/owned-state.js';
import { createLiveSessions, type AttachRecheck, type SessionLimits } from './live-sessions.js';
import {
  auditAttach,
  createSessionSweeper,
  endOnOwner,
  endPreviousSessions,
  recordSessionEnd,
} from './session-lifecycle.js';
import { createSessionPresenter, presentSession } from './session-present.js';
import { openTerminalSession } from './session-open.js';
import { createSessionRecordings } from './session-recordings.js';
import { createSessionRelay } from './session-relay.js';
import { createSessionView } from './session-view.js';
import {
  isSessionOwner,
  mayUseSession,
  ownerOf,
  whyMayNotUseSession,
  type Owned,
} from '../../access/session-access.js';
import {
  endSessionsOfNode,
  findSession,
  listSessions,
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

/** Whose rows a principal lists: null for all (an admin). */
function ownerFilter(principal: Principal) {
  if (isAdmin(principal)) return null;
  return ownerOf(principal) ?? { owner_type: 'none', owner_id: 'none' };
}

export function createSessionService(deps: SessionServiceDeps): SessionService {
  const { db, clock, logger, audit, events, settings } = deps;
  const limits = { ...sessionLimits, ...deps.limits };
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

  const ended = { db, clock, logger, audit, events, lease };
  const live = createLiveSessions({
    now: () => clock.now().getTime(),
    credentials: deps.credentials,
    ...(deps.limits ? { limits: deps.limits } : {}),
    onEnded(session, end) {
      recordSessionEnd(ended, session, end);
    },
    onAttached(session, principal) {
      auditAttach(ended, principal, 'session.attached', session.id, session.assetId);
    },
    onDetached(session, principal) {
      auditAttach(ended, principal, 'session.detached', session.id, session.assetId);
    },
  });

  /** Attaches relayed to the owner process; this side audits them as a local attach is. */
  const relay = createSessionRelay({
    owned: cluster,
    logger,
    live,
    credentials: deps.credentials,
    ...(deps.limits ? { limits: deps.limits } : {}),
    onAttached: (principal, session) => {
      auditAttach(ended, principal, 'session.attached', session.id, session.assetId);
    },
    onDetached: (principal, session) => {
      auditAttach(ended, principal, 'session.detached', session.id, session.assetId);
    },
  });

  /** The live values of other processes' sessions, asked of their owners (decision 0043). */
  const view = createSessionView({ owned: cluster, logger, live });
  const presenter = createSessionPresenter({ live, view, nodeId, remoteOwner });
  const sweeper = createSessionSweeper({ live, settings, logger, sweepMs: deps.sweepMs });
  const recordings = createSessionRecordings({ db, audit, live, ownerFilter });
  const opening = { deps, limits, nodeId, live, sweeper, presenter };

  return {
    create: (ctx, assetId, input) => openTerminalSession(opening, ctx, assetId, input),

    async list(ctx, state, page) {
      const result = await listSessions(db, { owner: ownerFilter(ctx.principal), state }, pageWindow(page));
      const visible = result.rows.filter((row) => mayUseSession(ctx.principal, row));
      return toPage(await presenter.presentAll(visible), result.total, page);
    },

    async get(ctx, id) {
      const row = await loadOwned(ctx.principal, id);
      const [session] = await presenter.presentAll([row]);
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
        const ended = await endOnOwner(relay, logger, owner, id);
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

    ...recordings,

    liveCount: () => live.size,

    async leaseRegained() {
      for (const id of sweeper.liveIds()) {
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
      endPreviousSessions({ db, logger }, startedAt, bus.shared ? [...registry.liveNodes()] : null);
      sweeper.start();
    },

    async close_() {
      sweeper.stop();
      live.closeAll('the hub is shutting down');
      relay.close('the hub process relaying the session is shutting down');
      await new Promise((r) => setTimeout(r, 50));
    },
  };
}
