/**
 * Runs schedules at their ticks. A tick is claimed before anything runs, by one UPDATE that moves
 * `next_run_at` on only if it still holds that tick (and a unique index allows one run record per tick), so a
 * tick runs at most once: across passes, across hub processes sharing a database, and across a restart.
 *
 * A tick found more than scheduleLimits.lateGraceSeconds late (the hub was down) is not run: the ticks missed
 * are recorded as one `missed` run. A run the hub was killed in the middle of is reported `interrupted` at the
 * next start, never run again. A run whose creator's API key was revoked or expired, or whose user is gone, is
 * refused: recorded `refused` with the reason, audited, and published like any other end of a run.
 */
import { newId, scheduleLimits, type ExecManyResult } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError } from '../../platform/hub-error.js';
import type { Logger } from '../../platform/logger.js';
import { alwaysHeldLease, type NodeLease } from '../../platform/cluster/node-registry.js';
import type { ActionContext } from '../../access/principal.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ExecService } from '../exec/exec.service.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import type { UserService } from '../users/users.service.js';
import type { ActionService } from '../actions/actions.service.js';
import type { MaintenanceService } from '../maintenance/maintenance.service.js';
import { execRequestOf } from '../actions/actions.service.js';
import { loadedTargets } from '../../access/target-set.js';
import { parseCron, ticksUntil } from './cron.js';
import { parseRunAs, principalOf, storedResult, type RunAs } from './schedules.presenter.js';
import {
  claimTick,
  dueSchedules,
  finishRun,
  insertRun,
  interruptRunning,
  interruptRunsOf,
  type ScheduleRow,
} from './schedules.repository.js';
import { settleWithin } from '../../platform/settle-within.js';

export interface Scheduler {
  /** Reports runs a previous process left unfinished, then checks for due ticks every `pollMs`. */
  start(): void;
  /**
   * One pass that reads what is due at the call: claims every due tick and starts its run; resolves when the
   * claims are made. A pass already going may have read before the call, so one more follows it.
   */
  runDue(): Promise<void>;
  /** Runs started and not finished (tests wait for them). */
  idle(): Promise<void>;
  close(): Promise<void>;
  /** Reports the runs a node that is gone left unfinished (the cluster's registry calls it, decision 0040). */
  onNodeGone(nodeId: string): Promise<void>;
}

export interface SchedulerDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  exec: Pick<ExecService, 'runMany'>;
  actions: Pick<ActionService, 'load'>;
  /** Whether the key a schedule runs as still stands (the keys module owns keys). */
  keys: Pick<ApiKeyService, 'expiryOf'>;
  /** Whether the user a schedule runs as still exists (the users module owns users). */
  users: Pick<UserService, 'account'>;
  /** Whether targets are in a maintenance window (for schedules that run only inside one). */
  maintenance: Pick<MaintenanceService, 'outside'>;
  logger: Logger;
  pollMs?: number;
  /**
   * This process in the cluster: its node id goes on each run, and a start reports as interrupted only the runs
   * of nodes not live (decision 0040). A cluster of one by default.
   */
  cluster?: { nodeId: string; liveNodes: () => ReadonlySet<string>; lease?: NodeLease };
}

/** Schedules claimed per pass (the rest wait for the next pass). */
const dueBatch = 100;

export function createScheduler(deps: SchedulerDeps): Scheduler {
  const { db, clock, audit, events, exec, actions, logger } = deps;
  const pollMs = deps.pollMs ?? 1000;
  const nodeId = deps.cluster?.nodeId ?? null;
  const liveNodes = () => [...(deps.cluster?.liveNodes() ?? [])];
  const lease = deps.cluster?.lease ?? alwaysHeldLease();
  const graceMs = scheduleLimits.lateGraceSeconds * 1000;
  const inFlight = new Map<string, Promise<void>>();
  let timer: NodeJS.Timeout | null = null;
  let passing: Promise<void> | null = null;
  /** The pass that follows the one going, for the calls made while it goes (at most one waits). */
  let following: Promise<void> | null = null;
  let started: Promise<void> | null = null;

  function publish(row: ScheduleRow, runId: string, status: string, outcome: ExecManyResult | null) {
    const summary = outcome?.summary ?? { total: 0, ok: 0, timeout: 0, offline: 0, error: 0 };
    events.publish('schedule.completed', {
      asset_ids: outcome ? outcome.results.map((r) => r.asset_id) : [],
      schedule_id: row.id,
      run_id: runId,
      status,
      ...summary,
    });
  }

  /** Claims a tick, recording it as missed (with how many ticks) instead of running it. */
  async function claimMissed(row: ScheduleRow, tick: Date, now: Date): Promise<void> {
    const cron = parseCron(row.cron, row.timezone);
    const { count, next } = ticksUntil(cron, tick, now);
    const runId = newId('scheduleRun');
    const claimed = await db.transaction().execute(async (trx) => {
      const fence = lease.fence();
      if (!(await claimTick(trx, row.id, tick.toISOString(), next?.toISOString() ?? null, false, fence)))
        return false;
      await insertRun(trx, {
        id: runId,
        schedule_id: row.id,
        tick_at: tick.toISOString(),
        status: 'missed',
        ticks: count,
        started_at: null,
        finished_at: now.toISOString(),
        summary: null,
        results: '[]',
        error: `${count} tick(s) passed while the hub was not running them; they were not replayed`,
        node_id: null,
      });
      return true;
    });
    if (claimed) publish(row, runId, 'missed', null);
  }

  /** What one run executes, as the schedule's creator. */
  async function execute(row: ScheduleRow, ctx: ActionContext): Promise<ExecManyResult> {
    let command = row.command;
    if (row.action_id !== null) command = (await actions.load(ctx.principal, row.action_id)).action.command;
    if (command === null) throw new HubError('validation', 'the schedule has no command');
    await audit.recordIntent(ctx, [
      { action: 'schedule.run', targetType: 'schedule', targetId: row.id, detail: { name: row.name } },
    ]);
    return exec.runMany(ctx, execRequestOf(loadedTargets(row), command, row.timeout_s));
  }

  /**
   * A run's end, fenced by this process's lease (decision 0053): false when the run was handed over (the
   * survivors of a stall reported it interrupted), and then nothing is published.
   */
  async function finished(written: boolean): Promise<boolean> {
    if (!written && !(await lease.holds())) lease.refused('schedule run finish');
    return written;
  }

  /** A run whose credential no longer stands is refused, not run: recorded, audited and published. */
  async function refuse(row: ScheduleRow, runId: string, ctx: ActionContext, reason: string): Promise<void> {
    const error = `refused: ${reason}; edit the schedule with a live credential to run it again`;
    const written = await db.transaction().execute(async (trx) => {
      const ended = await finishRun(
        trx,
        runId,
        {
          status: 'refused',
          finished_at: clock.now().toISOString(),
          summary: null,
          results: '[]',
          error: error.slice(0, 1024),
        },
        lease.fence(),
      );
      if (!ended) return false;
      await audit.record(trx, ctx, {
        action: 'schedule.run_refused',
        targetType: 'schedule',
        targetId: row.id,
        detail: { name: row.name, reason },
      });
      return true;
    });
    if (!(await finished(written))) return;
    logger.warn({ schedule: row.id, reason }, 'schedule run refused');
    publish(row, runId, 'refused', null);
  }

  /**
   * Why the credential a schedule runs as may no longer act, or null while it may: its API key revoked
   * (deleted) or expired, or its user gone.
   */
  async function runAsRefusal(runAs: RunAs, nowIso: string): Promise<string | null> {
    if (runAs.keyId !== null) {
      const key = await deps.keys.expiryOf(runAs.keyId);
      const name = runAs.keyName ? `"${runAs.keyName}" (${runAs.keyId})` : runAs.keyId;
      if (!key) return `the API key it runs as, ${name}, was revoked`;
      if (key.expiresAt !== null && key.expiresAt <= nowIso)
        return `the API key it runs as, ${name}, expired`;
    }
    if (runAs.userId !== null) {
      const user = await deps.users.account(runAs.userId);
      if (!user) return `the user it runs as (${runAs.userId}) no longer exists`;
      // Decision 0087: refused while disabled, run again once enabled.
      if (user.disabled_at !== null) return `the user it runs as, ${user.username} (${user.id}), is disabled`;
    }
    return null;
  }

  async function run(row: ScheduleRow, runId: string): Promise<void> {
    const runAs = parseRunAs(row.run_as);
    const ctx: ActionContext = { principal: principalOf(runAs), requestId: null, ip: null };
    try {
      const refusal = await runAsRefusal(runAs, clock.now().toISOString());
      if (refusal !== null) {
        await refuse(row, runId, ctx, refusal);
        return;
      }
      const outcome = await execute(row, ctx);
      const written = await finishRun(
        db,
        runId,
        {
          status: 'completed',
          finished_at: clock.now().toISOString(),
          summary: JSON.stringify(outcome.summary),
          results: JSON.stringify(outcome.results.map(storedResult)),
          error: null,
        },
        lease.fence(),
      );
      if (await finished(written)) publish(row, runId, 'completed', outcome);
    } catch (error) {
      // A target gone, a group emptied, an action deleted: the run failed, the schedule stays.
      const message = error instanceof Error ? error.message : String(error);
      if (!(error instanceof HubError)) logger.error({ err: error, schedule: row.id }, 'schedule run failed');
      const written = await finishRun(
        db,
        runId,
        {
          status: 'failed',
          finished_at: clock.now().toISOString(),
          summary: null,
          results: '[]',
          error: message.slice(0, 1024),
        },
        lease.fence(),
      );
      if (await finished(written)) publish(row, runId, 'failed', null);
    }
  }

  /** Why a schedule that runs only inside a maintenance window skips this tick, or null when it runs. */
  async function outsideWindow(row: ScheduleRow, now: Date): Promise<string | null> {
    if (row.only_in_window !== 1) return null;
    const outside = await deps.maintenance.outside(loadedTargets(row), now);
    if (outside.length === 0) return null;
    const more = outside.length > 10 ? ` and ${outside.length - 10} more` : '';
    return (
      `skipped: the schedule runs only inside a maintenance window, and ${outside.length} target(s) ` +
      `were outside one: ${outside.slice(0, 10).join(', ')}${more}`
    );
  }

  /**
   * Claims a tick and starts its run; a schedule whose previous run is still going skips the tick (`missed`),
   * one that runs only inside a maintenance window skips it while a target is outside one (`skipped`).
   */
  async function claimAndRun(row: ScheduleRow, tick: Date, now: Date): Promise<void> {
    const cron = parseCron(row.cron, row.timezone);
    const next = cron.nextRun(tick);
    const busy = inFlight.has(row.id);
    const skipped = busy ? null : await outsideWindow(row, now);
    const runId = newId('scheduleRun');
    if (skipped !== null) {
      await claimSkipped(row, runId, tick, next, now, skipped);
      return;
    }
    const claimed = await db.transaction().execute(async (trx) => {
      const fence = lease.fence();
      if (!(await claimTick(trx, row.id, tick.toISOString(), next?.toISOString() ?? null, !busy, fence)))
        return false;
      await insertRun(trx, {
        id: runId,
        schedule_id: row.id,
        tick_at: tick.toISOString(),
        status: busy ? 'missed' : 'running',
        ticks: 1,
        started_at: busy ? null : now.toISOString(),
        finished_at: busy ? now.toISOString() : null,
        summary: null,
        results: '[]',
        error: busy ? 'the previous run was still going; this tick was skipped' : null,
        node_id: busy ? null : nodeId,
      });
      return true;
    });
    if (!claimed) {
      // Taken by another process, or refused: this process's lease ran out (decision 0053).
      if (!(await lease.holds())) lease.refused('schedule tick claim');
      return;
    }
    if (busy) {
      publish(row, runId, 'missed', null);
      return;
    }
    const running = run(row, runId).finally(() => inFlight.delete(row.id));
    inFlight.set(row.id, running);
  }

  /** Claims a tick as skipped, with the reason, without running it. */
  async function claimSkipped(
    row: ScheduleRow,
    runId: string,
    tick: Date,
    next: Date | null,
    now: Date,
    reason: string,
  ): Promise<void> {
    const claimed = await db.transaction().execute(async (trx) => {
      if (
        !(await claimTick(trx, row.id, tick.toISOString(), next?.toISOString() ?? null, false, lease.fence()))
      )
        return false;
      await insertRun(trx, {
        id: runId,
        schedule_id: row.id,
        tick_at: tick.toISOString(),
        status: 'skipped',
        ticks: 1,
        started_at: null,
        finished_at: now.toISOString(),
        summary: null,
        results: '[]',
        error: reason.slice(0, 1024),
        node_id: null,
      });
      return true;
    });
    if (claimed) publish(row, runId, 'skipped', null);
    else if (!(await lease.holds())) lease.refused('schedule tick claim');
  }

  async function pass(): Promise<void> {
    const now = clock.now();
    const due = await dueSchedules(db, now.toISOString(), dueBatch);
    for (const row of due) {
      if (row.next_run_at === null) continue;
      const tick = new Date(row.next_run_at);
      try {
        if (now.getTime() - tick.getTime() > graceMs) await claimMissed(row, tick, now);
        else await claimAndRun(row, tick, now);
      } catch (error) {
        logger.error({ err: error, schedule: row.id }, 'schedule tick could not be claimed');
      }
    }
  }

  /** The last poll failed (its error logged once, not at every poll). */
  let failing = false;

  async function runDue(): Promise<void> {
    await started;
    // One pass at a time in this process; other processes are kept out by the claim itself.
    if (passing) {
      following ??= passing
        .catch(() => undefined)
        .then(() => {
          following = null;
          return runDue();
        });
      return following;
    }
    passing = pass().finally(() => {
      passing = null;
    });
    return passing;
  }

  return {
    start() {
      started = interruptRunning(db, clock.now().toISOString(), liveNodes()).then(
        (n) => {
          if (n > 0) logger.warn({ runs: n }, 'schedule runs interrupted by the last stop were reported');
        },
        (error: unknown) => {
          logger.error({ err: error }, 'could not report interrupted schedule runs');
        },
      );
      timer = setInterval(() => {
        // The database out of reach (a PostgreSQL restart) must not end the process: logged once, retried at
        // the next poll.
        runDue().then(
          () => {
            if (failing) logger.info('due schedules are read again');
            failing = false;
          },
          (error: unknown) => {
            if (!failing)
              logger.error({ err: error }, 'due schedules could not be read; retried at each poll');
            failing = true;
          },
        );
      }, pollMs);
      timer.unref();
    },
    runDue,
    async onNodeGone(gone) {
      const n = await interruptRunsOf(db, clock.now().toISOString(), gone);
      if (n > 0)
        logger.warn({ runs: n, node: gone }, 'schedule runs of a hub process that is gone were reported');
    },
    async idle() {
      await passing;
      await Promise.allSettled([...inFlight.values()]);
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      // A pass that failed was logged by its poll; the stop goes on.
      await passing?.catch(() => undefined);
      // Runs still going are left `running`: the next start reports them interrupted.
      await settleWithin(inFlight.values(), 5000);
    },
  };
}
