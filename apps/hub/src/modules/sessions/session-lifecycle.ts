/**
 * What happens around a terminal session's life on its owner process: its end written once (fenced by this
 * process's lease, decision 0053), attaches and detaches audited, and the periodic sweep (detach grace, idle
 * timeout, slow clients, recording flushes).
 */
import type { Kysely } from 'kysely';
import type { Principal } from '../../access/principal.js';
import { clusterRetryAfterSeconds } from '../../agents/agent-call.js';
import { ClusterUnavailableError } from '../../platform/cluster/cluster-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Clock } from '../../platform/clock.js';
import type { NodeLease } from '../../platform/cluster/node-registry.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditService } from '../audit/audit.service.js';
import type { LiveSession, LiveSessions } from './live-sessions.js';
import type { SessionRelay } from './session-relay.js';
import { endLiveSessions, endOwnedSession, findSession, updateRecording } from './sessions.repository.js';

/** Sweeps (grace, idle, slow clients) and recording flushes run this often. */
const sweepDefaultMs = 1_000;

export interface SessionEndDeps {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  events: EventBus;
  lease: NodeLease;
}

/** Writes a session's end (its row, its recording's, the audit) unless the survivors ended it already. */
export function recordSessionEnd(
  deps: SessionEndDeps,
  session: LiveSession,
  end: { reason: string; exitCode: number | null },
): void {
  const { db, clock, logger, audit, events, lease } = deps;
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
}

export function auditAttach(
  deps: Pick<SessionEndDeps, 'audit' | 'events' | 'logger'>,
  principal: Principal,
  action: 'session.attached' | 'session.detached',
  id: string,
  assetId: string,
): void {
  void deps.audit
    .recordIntent({ principal, requestId: null, ip: null }, [
      { action, targetType: 'session', targetId: id, detail: { asset_id: assetId } },
    ])
    .then(() => {
      deps.events.publish(action, { asset_ids: [assetId], session_id: id, kind: 'terminal' });
    })
    .catch((error: unknown) => {
      deps.logger.error({ err: error, session_id: id }, `auditing a ${action} failed`);
    });
}

/**
 * At start: alone, every session from before `startedAt` ended; in a cluster (`liveNodes` given), only those
 * of nodes that are gone.
 */
export function endPreviousSessions(
  deps: { db: Kysely<Database>; logger: Logger },
  startedAt: string,
  liveNodes: string[] | null,
): void {
  endLiveSessions(deps.db, startedAt, 'the hub restarted', liveNodes).then(
    (ended) => {
      if (ended > 0)
        deps.logger.info({ sessions: ended }, 'sessions of the previous hub process marked ended');
    },
    (error: unknown) => {
      deps.logger.error({ err: error }, 'marking the previous process sessions ended failed');
    },
  );
}

/** Asks the owner process to end its session: false when it had ended, 503 when it cannot be reached. */
export function endOnOwner(
  relay: Pick<SessionRelay, 'end'>,
  logger: Logger,
  owner: string,
  id: string,
): Promise<boolean> {
  return relay.end(owner, id, 'closed by the user').catch((error: unknown) => {
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
}

export interface SessionSweeper {
  /** A session opened here: swept (its recording flushed) while it lives. */
  track(id: string): void;
  /** The sessions opened here that still live. */
  liveIds(): string[];
  start(): void;
  stop(): void;
}

export function createSessionSweeper(deps: {
  live: LiveSessions;
  settings: { detachGraceSeconds(): number; idleTimeoutMinutes(): number };
  logger: Logger;
  sweepMs: number | undefined;
}): SessionSweeper {
  const { live, settings, logger } = deps;
  let timer: NodeJS.Timeout | null = null;
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
    track(id) {
      ids.add(id);
    },
    liveIds,
    start() {
      timer = setInterval(() => {
        sweep().catch((error: unknown) => {
          logger.error({ err: error }, 'session sweep failed');
        });
      }, deps.sweepMs ?? sweepDefaultMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = null;
    },
  };
}
