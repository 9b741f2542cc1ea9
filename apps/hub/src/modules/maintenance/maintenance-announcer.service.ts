/**
 * Publishes `maintenance.started` and `maintenance.ended` once per occurrence of a window, however many hub
 * processes poll: a start is the insert of the occurrence's row (its primary key lets one process win), an end
 * the update that sets its `ended_at` while still null (one process sees a row changed). An occurrence ends
 * when its time is up, or early when its window is removed or changed so that it no longer holds.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import { readStringList } from '../../platform/db/paging.js';
import type { MaintenanceService } from './maintenance.service.js';
import {
  claimEnded,
  claimStarted,
  deleteEndedBefore,
  openOccurrences,
  type OccurrenceRow,
} from './maintenance.repository.js';

export interface MaintenanceAnnouncer {
  /** One pass now (a pass already running is joined). */
  runDue(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

/** What an event may name of assets (the catalogue's bound). */
const maxEventAssets = 10_000;
/** Ended occurrences are kept this long, then removed (once in `purgeEvery` passes). */
const keptMs = 30 * 24 * 3600_000;
const purgeEvery = 600;

export function createMaintenanceAnnouncer(deps: {
  db: Kysely<Database>;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  maintenance: Pick<MaintenanceService, 'resolved'>;
  pollMs?: number;
}): MaintenanceAnnouncer {
  const { db, clock, events, logger, maintenance } = deps;
  const pollMs = deps.pollMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let passing: Promise<void> | null = null;
  let passes = 0;
  let failing = false;

  function publish(type: 'maintenance.started' | 'maintenance.ended', row: OccurrenceRow, endsAt: string) {
    events.publish(type, {
      asset_ids: readStringList(row.asset_ids),
      window_id: row.window_id,
      name: row.name,
      reason: row.reason,
      starts_at: row.starts_at,
      ends_at: endsAt,
    });
  }

  async function pass(): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    const windows = await maintenance.resolved(now);
    const holding = new Map(
      windows.flatMap((w) => (w.current ? [[w.row.id, w.current.start.toISOString()] as const] : [])),
    );
    // Ends first, so a window changed into a new occurrence reads ended, then started.
    for (const open of await openOccurrences(db)) {
      if (holding.get(open.window_id) === open.starts_at) continue;
      if (await claimEnded(db, open.window_id, open.starts_at, nowIso)) {
        // Removed early: it ended now, not when it was planned to.
        publish('maintenance.ended', open, open.ends_at < nowIso ? open.ends_at : nowIso);
      }
    }
    for (const window of windows) {
      if (window.current === null) continue;
      const row: OccurrenceRow = {
        window_id: window.row.id,
        starts_at: window.current.start.toISOString(),
        ends_at: window.current.end.toISOString(),
        name: window.row.name,
        reason: window.row.reason,
        asset_ids: JSON.stringify([...window.assets].sort().slice(0, maxEventAssets)),
        started_at: nowIso,
        ended_at: null,
      };
      if (await claimStarted(db, row)) publish('maintenance.started', row, row.ends_at);
    }
    passes += 1;
    if (passes % purgeEvery === 0)
      await deleteEndedBefore(db, new Date(now.getTime() - keptMs).toISOString());
  }

  function runDue(): Promise<void> {
    passing ??= pass().finally(() => {
      passing = null;
    });
    return passing;
  }

  return {
    runDue,
    start() {
      timer = setInterval(() => {
        // The database out of reach must not end the process: logged once, retried at the next poll.
        runDue().then(
          () => {
            failing = false;
          },
          (error: unknown) => {
            if (!failing) logger.error({ err: error }, 'maintenance windows could not be judged; retried');
            failing = true;
          },
        );
      }, pollMs);
      timer.unref();
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await passing?.catch(() => undefined);
    },
  };
}
