/**
 * The lifecycle of desktop sessions (decisions 0043, 0058): the sessions this process holds in memory, their
 * idle timers and ends, and their rows in `desktop_sessions`, which tell the other processes where each lives.
 * A session another process holds is found by its row and ended by asking its owner.
 */
import type { DesktopSession } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.js';
import { mayUseSession } from '../../access/session-access.js';
import type { OwnedStates } from '../../platform/cluster/owned-state.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import {
  deleteDesktopSession,
  deleteDesktopSessionsNotOn,
  deleteDesktopSessionsOf,
  findDesktopSession,
  insertDesktopSession,
  listDesktopSessionsElsewhere,
  type DesktopSessionRow,
} from './desktop.repository.js';
import {
  desktopKind,
  desktopSessionLimits,
  presentDesktopSessionRow,
  type ConsoleTarget,
  type LiveSession,
} from './desktop-session-state.js';

const clusterRequestMs = 5_000;

export interface DesktopSessionTable {
  /** This process's sessions, by id. */
  sessions: Map<string, LiveSession>;
  /** The one rule terminals follow too (access/session-access.ts): the owner, or an admin. */
  mayUse(principal: Principal, s: Pick<ConsoleTarget, 'assetId' | 'owner'>): boolean;
  /** The session, if this principal may use it; otherwise the same 404 as an unknown id. */
  sessionFor(principal: Principal, id: string): LiveSession;
  /** The row of a session another live process holds, if this principal may use it. */
  remoteFor(principal: Principal, id: string): Promise<DesktopSessionRow>;
  /** The sessions other live processes hold that this principal may use, as their rows show them. */
  listElsewhere(principal: Principal): Promise<DesktopSession[]>;
  /** Records where the session lives (for the other processes), then holds it and starts its idle timer. */
  add(s: LiveSession): Promise<void>;
  /** `forget` false when the caller removes the rows itself (the hub stopping). */
  end: (s: LiveSession, reason: string, forget?: boolean) => void;
  armIdle: (s: LiveSession) => void;
  /** Asks the process holding the session to end it; false when it did not. */
  endElsewhere(row: DesktopSessionRow): Promise<boolean>;
  /** Forgets the rows of processes that are gone (at start). */
  sweep(): Promise<void>;
  /** A hub process is gone (the registry tells one survivor): its sessions went with it. */
  onNodeGone(nodeId: string): Promise<void>;
  /** Ends the sessions here whose rows the others removed while this process had lost its lease. */
  leaseRegained(): Promise<void>;
  /**
   * Ends every session here at once (before it returns its promise), then removes this process's rows (best
   * effort: it stops).
   */
  closeAll(reason: string): Promise<void>;
}

export function createDesktopSessionTable(deps: {
  db: Kysely<Database>;
  events: EventBus;
  logger: Logger;
  cluster: OwnedStates;
}): DesktopSessionTable {
  const { db, events, logger } = deps;
  const { bus, registry } = deps.cluster;
  const peers = deps.cluster.kind(desktopKind);
  const sessions = new Map<string, LiveSession>();

  const mayUse = (principal: Principal, s: Pick<ConsoleTarget, 'assetId' | 'owner'>) =>
    mayUseSession(principal, { asset_id: s.assetId, ...s.owner });

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

  peers.answer('end', (data) => {
    const s = sessions.get(data.session_id);
    if (s) end(s, 'closed');
    return { ok: s !== undefined };
  });

  return {
    sessions,
    mayUse,

    sessionFor(principal, id) {
      const s = sessions.get(id);
      if (!s || !mayUse(principal, s)) throw new HubError('not_found', `no desktop session ${id}`);
      return s;
    },

    async remoteFor(principal, id) {
      const row = bus.shared ? await findDesktopSession(db, id) : undefined;
      if (
        !row ||
        row.node_id === bus.nodeId ||
        !registry.isLive(row.node_id) ||
        !mayUseSession(principal, row)
      )
        throw new HubError('not_found', `no desktop session ${id}`);
      return row;
    },

    async listElsewhere(principal) {
      if (!bus.shared) return [];
      const rows = await listDesktopSessionsElsewhere(db, bus.nodeId, desktopSessionLimits.sessions * 4);
      return rows
        .filter((r) => registry.isLive(r.node_id) && mayUseSession(principal, r))
        .map(presentDesktopSessionRow);
    },

    async add(s) {
      // Where it lives, for the other processes (decision 0043).
      await insertDesktopSession(db, {
        id: s.id,
        asset_id: s.assetId,
        ...s.owner,
        node_id: bus.nodeId,
        created_at: s.createdAt,
      });
      sessions.set(s.id, s);
      armIdle(s);
    },

    end,
    armIdle,

    endElsewhere: (row) =>
      peers.request(row.node_id, 'end', { session_id: row.id }, { timeoutMs: clusterRequestMs }).then(
        (reply) => reply.ok,
        () => false,
      ),

    async sweep() {
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

    async closeAll(reason) {
      for (const s of [...sessions.values()]) end(s, reason, false);
      // Best effort: a database already gone (or unreachable) leaves the rows to the survivor that is told
      // this node is gone, and to the next start's sweep.
      await deleteDesktopSessionsOf(db, bus.nodeId).catch((error: unknown) => {
        logger.warn({ err: error }, 'desktop: forgetting this process’s sessions at stop failed');
      });
    },
  };
}
