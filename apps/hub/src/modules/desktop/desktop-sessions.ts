/**
 * Desktop sessions (issue 16, decision 0030). A session is created for an asset (policy, scope, online
 * checks; the desktop password released once in the answer), then attached by its owner or an admin over a
 * WebSocket relayed to a `tcp` channel stream to the machine's own VNC server. `policy.interactive_enabled` is
 * checked at the create and at every attach (spec 5.5.3). One console at a time: a new attach replaces the
 * previous one. A session with no console ends after its idle timeout; sessions live in the memory of the
 * process that created them (the VNC server keeps the desktop itself): an attach on another process is checked
 * there and relayed to that owner on the stream relay, as a terminal's is (decision 0058). This file is the
 * service; desktop-session-table.ts keeps the sessions' lifecycle, desktop-attach.ts admits a console,
 * desktop-consoles.ts relays it and desktop-recordings.ts records it (when recording is on).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex, Readable } from 'node:stream';
import {
  newId,
  type DesktopRecordingInfo,
  type DesktopSession,
  type DesktopSessionCreated,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext, Principal } from '../../access/principal.js';
import { ownerOf, sameOwner, type Owner } from '../../access/session-access.js';
import type { AgentStreams } from '../../agents/agent-gateway.js';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { Clock } from '../../platform/clock.js';
import { createLocalOwnedStates, type OwnedStates } from '../../platform/cluster/owned-state.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import { policyDisabled } from '../../platform/policy-error.js';
import type { Logger } from '../../platform/logger.js';
import type { CredentialLifetime } from '../../http/credential-lifetime.js';
import type { UpgradeRecheck } from '../../http/upgrade.js';
import type { AuditService } from '../audit/audit.service.js';
import { createDesktopAttaches } from './desktop-attach.js';
import { createDesktopConsoles } from './desktop-consoles.js';
import { createDesktopRecordings } from './desktop-recordings.js';
import {
  desktopSessionLimits,
  presentDesktopSession,
  presentDesktopSessionRow,
  type LiveSession,
} from './desktop-session-state.js';
import { createDesktopSessionTable } from './desktop-session-table.js';
import type { DesktopCredentialService } from './desktop.service.js';

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
  const table = createDesktopSessionTable({ db, events, logger, cluster });
  const { sessions } = table;
  const requireInteractive = () => {
    if (!deps.interactiveEnabled()) throw policyDisabled('policy.interactive_enabled');
  };
  const recordings = createDesktopRecordings({
    db,
    clock,
    audit,
    events,
    logger,
    dataDir: deps.dataDir,
    recordingEnabled: deps.recordingEnabled,
  });
  const consoles = createDesktopConsoles({
    sessions,
    armIdle: table.armIdle,
    recordings,
    streams: deps.streams,
    credentials: deps.credentials,
    cluster,
    logger,
  });
  const attaches = createDesktopAttaches({ table, consoles, audit, events, logger, requireInteractive });

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
      refuseOverLimits(sessions, owner);
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
      await table.add(s);
      events.publish('desktop.session_started', {
        asset_ids: [row.id],
        session_id: s.id,
        asset_id: row.id,
        owner: owner.owner_id,
      });
      return { session: presentDesktopSession(s), credentials };
    },

    async list(principal) {
      const here = [...sessions.values()]
        .filter((s) => table.mayUse(principal, s))
        .map(presentDesktopSession);
      return [...here, ...(await table.listElsewhere(principal))];
    },

    attach(principal, request, socket, head, recheck) {
      attaches.attach(principal, request, socket, head, recheck);
    },

    async close(ctx, sessionId) {
      const local = sessions.get(sessionId);
      let view: DesktopSession;
      let assetId: string;
      if (local) {
        const s = table.sessionFor(ctx.principal, sessionId);
        view = presentDesktopSession(s);
        assetId = s.assetId;
        table.end(s, 'closed');
      } else {
        const row = await table.remoteFor(ctx.principal, sessionId);
        if (!(await table.endElsewhere(row)))
          throw new HubError('not_found', `no desktop session ${sessionId}`);
        view = presentDesktopSessionRow(row);
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

    recordings: (principal) => recordings.list(principal),

    openRecording: (ctx, recordingId) => recordings.open(ctx, recordingId),

    detachAll(reason) {
      consoles.detachAll(reason);
    },

    purgeRecordings: (cutoff, limit) => recordings.purge(cutoff, limit),

    async start() {
      consoles.start();
      await table.sweep();
    },

    onNodeGone: (nodeId) => table.onNodeGone(nodeId),

    leaseRegained: () => table.leaseRegained(),

    async closeAll() {
      consoles.close('the hub is stopping');
      // The sessions end at once; their rows are removed after the server has closed, as before.
      const closing = table.closeAll('the hub is stopping');
      attaches.close();
      await closing;
    },
  };
}

/** One process holds at most so many sessions, and one owner so many of them. */
function refuseOverLimits(sessions: Map<string, LiveSession>, owner: Owner): void {
  if (sessions.size >= desktopSessionLimits.sessions)
    throw new HubError('conflict', `the hub holds ${desktopSessionLimits.sessions} desktop sessions already`);
  if (
    [...sessions.values()].filter((s) => sameOwner(s.owner, owner)).length >=
    desktopSessionLimits.sessionsPerOwner
  )
    throw new HubError(
      'conflict',
      `you hold ${desktopSessionLimits.sessionsPerOwner} desktop sessions already; close one first`,
    );
}
