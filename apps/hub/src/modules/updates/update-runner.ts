/**
 * Executes update runs (decision 0081). A run is executed by one process: a run started now by the process
 * that created it; a scheduled one by the process whose claim (one UPDATE from `scheduled` to `running`,
 * fenced by its lease) wins. At most `concurrency` targets are worked on at once, started in slices that yield
 * (platform/slices.ts); no new target starts once `max_failures` have failed, the run was cancelled, or the
 * window it is bound to has ended (the rest are recorded skipped or cancelled). Each target's result is stored
 * as it arrives and published as `update_run.target_completed`. A run left `running` by a process that is
 * gone is finished as failed, with the reason, by the survivors (or by the next start of a hub of one).
 */
import { performance } from 'node:perf_hooks';
import { updateRunLimits, updatesLimits, type AgentRequestResult, type UpdateSelection } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ActionContext, Principal } from '../../access/principal.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  ClusterUnavailableCallError,
} from '../../agents/agent-gateway.js';
import { clusterUnavailable, offlineMessage, type AgentCaller } from '../../agents/agent-call.js';
import { alwaysHeldLease, type NodeLease } from '../../platform/cluster/node-registry.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import { settleWithin } from '../../platform/settle-within.js';
import { eachInSlices, fanOutSlice } from '../../platform/slices.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ApiKeyService } from '../keys/keys.service.js';
import type { UserService } from '../users/users.service.js';
import { parseRunAs, principalOf, type RunAs } from '../schedules/schedules.presenter.js';
import { countsFrom, noOutcome, storedOutput } from './updates.presenter.js';
import {
  claimScheduled,
  countsOf,
  dueRuns,
  endPending,
  endRun,
  failRunning,
  findRun,
  orphanedRuns,
  pruneRuns,
  runStatus,
  targetSummaries,
  updateTarget,
  type UpdateRunRow,
  type UpdateTargetRow,
} from './updates.repository.js';

export interface UpdateRunner {
  /** Finishes runs a previous process left running, then claims scheduled runs every `pollMs`. */
  start(): void;
  /** One pass: claims every due scheduled run and starts it. */
  runDue(): Promise<void>;
  /** Starts a run this process created as `running`. */
  launch(runId: string): void;
  /** Tells a run executed here to start no new target (the row says `cancelled` already). */
  cancelled(runId: string): void;
  /** Runs started here and not finished (tests and the bench wait for them). */
  idle(): Promise<void>;
  close(): Promise<void>;
  /** Finishes as failed the runs a node that is gone left running (decision 0040). */
  onNodeGone(nodeId: string): Promise<void>;
}

export interface UpdateRunnerDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  agents: AgentCaller;
  keys: Pick<ApiKeyService, 'expiryOf'>;
  users: Pick<UserService, 'account'>;
  logger: Logger;
  pollMs?: number;
  /** How much longer than the agent's own timeout the hub waits for its answer. */
  replyMarginMs?: number;
  /** Targets started per turn of the event loop (fanOutSlice by default). */
  sliceSize?: number;
  cluster?: { nodeId: string; liveNodes: () => ReadonlySet<string>; lease?: NodeLease };
}

/** Scheduled runs claimed per pass. */
const dueBatch = 20;
const errorChars = 1024;

type Outcome = Pick<
  UpdateTargetRow,
  | 'status'
  | 'manager'
  | 'changes'
  | 'change_list'
  | 'changes_truncated'
  | 'exit_code'
  | 'timed_out'
  | 'reboot_required'
  | 'rebooting'
  | 'output'
  | 'output_truncated'
  | 'error'
>;

function failure(status: 'failed' | 'offline', error: string): Outcome {
  return { ...noOutcome, status, error: error.slice(0, errorChars) };
}

function managerOutcome(
  result: AgentRequestResult<'updates.simulate'> | AgentRequestResult<'updates.apply'>,
  mode: string,
  timeoutMinutes: number,
): Outcome {
  const kept = result.changes.slice(0, updateRunLimits.storedChanges);
  const output = storedOutput(result.output);
  const base = {
    manager: result.manager,
    changes: result.changes.length,
    change_list: JSON.stringify(kept),
    changes_truncated: result.truncated || kept.length < result.changes.length ? 1 : 0,
    output: output.text,
    output_truncated: result.output_truncated || output.cut ? 1 : 0,
  };
  if (mode === 'dry_run' || !('exit_code' in result)) {
    return {
      ...base,
      status: 'ok',
      exit_code: null,
      timed_out: 0,
      reboot_required: null,
      rebooting: 0,
      error: null,
    };
  }
  let error: string | null = null;
  if (result.timed_out) error = `the package manager did not finish within ${timeoutMinutes} min`;
  else if (result.exit_code !== 0)
    error = `the package manager exited with ${result.exit_code === null ? 'no code (killed)' : String(result.exit_code)}`;
  return {
    ...base,
    status: error === null ? 'ok' : 'failed',
    exit_code: result.exit_code,
    timed_out: result.timed_out ? 1 : 0,
    reboot_required: result.reboot_required ? 1 : 0,
    rebooting: result.rebooting ? 1 : 0,
    error,
  };
}

/** A target's failure to answer, as its stored result. */
function callFailure(
  error: unknown,
  row: { id: string; name: string; last_seen_at: string | null },
): Outcome {
  if (error instanceof AgentOfflineError) return failure('offline', offlineMessage(row));
  if (error instanceof ClusterUnavailableCallError) return failure('failed', clusterUnavailable(row).message);
  if (error instanceof AgentTimeoutError) return failure('failed', 'the agent did not answer in time');
  if (error instanceof AgentReplyError) {
    if (error.code === 'unsupported') {
      const said = error.message.trim();
      return failure(
        'failed',
        `the agent has no package manager support on this machine${said ? `: ${said}` : ''}`,
      );
    }
    return failure('failed', `${error.code}: ${error.message}`);
  }
  throw error;
}

export function createUpdateRunner(deps: UpdateRunnerDeps): UpdateRunner {
  const { db, clock, audit, events, agents, logger } = deps;
  const pollMs = deps.pollMs ?? 5000;
  const marginMs = deps.replyMarginMs ?? 30_000;
  const sliceSize = deps.sliceSize ?? fanOutSlice;
  const nodeId = deps.cluster?.nodeId ?? null;
  const lease = deps.cluster?.lease ?? alwaysHeldLease();
  const liveNodes = () => [...(deps.cluster?.liveNodes() ?? [])];
  const inFlight = new Map<string, Promise<void>>();
  const cancelledHere = new Set<string>();
  let timer: NodeJS.Timeout | null = null;
  let passing: Promise<void> | null = null;
  let started: Promise<void> | null = null;

  /** Why the credential a run acts as may no longer act, or null. */
  async function runAsRefusal(runAs: RunAs, nowIso: string): Promise<string | null> {
    if (runAs.keyId !== null) {
      const key = await deps.keys.expiryOf(runAs.keyId);
      if (!key) return `the API key it runs as (${runAs.keyId}) was revoked`;
      if (key.expiresAt !== null && key.expiresAt <= nowIso)
        return `the API key it runs as (${runAs.keyId}) expired`;
    }
    if (runAs.userId !== null) {
      const user = await deps.users.account(runAs.userId);
      if (!user) return `the user it runs as (${runAs.userId}) no longer exists`;
      if (user.disabled_at !== null) return `the user it runs as, ${user.username} (${user.id}), is disabled`;
    }
    return null;
  }

  async function publishEnd(run: UpdateRunRow, status: string, reason: string | null): Promise<void> {
    const counts = countsFrom((await countsOf(db, [run.id])).get(run.id));
    const targets = await targetSummaries(db, run.id);
    events.publish('update_run.completed', {
      asset_ids: targets.map((t) => t.asset_id),
      run_id: run.id,
      mode: run.mode,
      status,
      status_reason: reason === null ? null : reason.slice(0, errorChars),
      total: counts.total,
      ok: counts.ok,
      failed: counts.failed,
      offline: counts.offline,
      skipped: counts.skipped,
      cancelled: counts.cancelled,
    });
  }

  /** Ends a run as failed (before any target ran, or after its process went away). */
  async function fail(run: UpdateRunRow, reason: string, fenced: boolean): Promise<void> {
    const nowIso = clock.now().toISOString();
    await endPending(db, run.id, 'skipped', reason, nowIso);
    const ended = await endRun(
      db,
      run.id,
      { status: 'failed', status_reason: reason.slice(0, errorChars), finished_at: nowIso },
      fenced ? lease.fence() : undefined,
    );
    if (ended) await publishEnd(run, 'failed', reason);
  }

  /** A target's turn: its result stored and published; true when it counts as a failure. */
  async function work(
    run: UpdateRunRow,
    ctx: ActionContext,
    target: Pick<UpdateTargetRow, 'asset_id' | 'asset_name'>,
  ): Promise<boolean> {
    const startedIso = clock.now().toISOString();
    const t0 = performance.now();
    const summary = (await agents.assets.summaries([target.asset_id]))[0];
    let outcome: Outcome;
    if (!summary) {
      outcome = failure('failed', 'the asset was deleted');
    } else if (!agents.isOnline(summary.id)) {
      outcome =
        agents.notConnected(summary).code === 'cluster_unavailable'
          ? failure('failed', clusterUnavailable(summary).message)
          : failure('offline', offlineMessage(summary));
    } else {
      if (
        !(await updateTarget(db, run.id, target.asset_id, 'pending', {
          status: 'running',
          started_at: startedIso,
        }))
      )
        return false;
      const request = {
        selection: run.selection as UpdateSelection,
        packages: run.selection === 'named' ? (JSON.parse(run.packages) as string[]) : [],
        refresh: run.refresh === 1,
      };
      try {
        if (run.mode === 'apply') {
          const timeoutMs = Math.min(run.timeout_minutes * 60_000, updatesLimits.applyTimeoutMs);
          await audit.recordIntent(ctx, [
            {
              action: 'updates.apply',
              targetType: 'asset',
              targetId: target.asset_id,
              assetId: target.asset_id,
              detail: {
                run_id: run.id,
                selection: run.selection,
                packages: request.packages.slice(0, 50),
                reboot_if_required: run.reboot_if_required === 1,
              },
            },
          ]);
          const result = await agents.gateway.request(
            target.asset_id,
            'updates.apply',
            { ...request, timeout_ms: timeoutMs, reboot_if_required: run.reboot_if_required === 1 },
            { timeoutMs: timeoutMs + marginMs },
          );
          outcome = managerOutcome(result, 'apply', run.timeout_minutes);
        } else {
          const result = await agents.gateway.request(target.asset_id, 'updates.simulate', request, {
            timeoutMs: updateRunLimits.dryRunTimeoutMinutes * 60_000 + marginMs,
          });
          outcome = managerOutcome(result, 'dry_run', updateRunLimits.dryRunTimeoutMinutes);
        }
      } catch (error) {
        outcome = callFailure(error, summary);
      }
    }
    const finishedIso = clock.now().toISOString();
    const from = outcome.status === 'offline' || !summary ? 'pending' : 'running';
    const stored = await updateTarget(db, run.id, target.asset_id, from, {
      ...outcome,
      started_at: from === 'pending' ? null : startedIso,
      finished_at: finishedIso,
      duration_ms: from === 'pending' ? null : Math.max(0, Math.round(performance.now() - t0)),
    });
    if (stored) {
      events.publish('update_run.target_completed', {
        asset_ids: [target.asset_id],
        run_id: run.id,
        mode: run.mode,
        asset_id: target.asset_id,
        status: outcome.status,
        changes: outcome.changes,
        exit_code: outcome.exit_code,
        reboot_required: outcome.reboot_required === null ? null : outcome.reboot_required === 1,
        rebooting: outcome.rebooting === 1,
        error: outcome.error,
      });
    }
    return outcome.status === 'failed';
  }

  /** Whether the run was cancelled (here, or on another process: read at most every half second). */
  function cancellation(runId: string): () => Promise<boolean> {
    let readAt = 0;
    let known = false;
    return async () => {
      if (cancelledHere.has(runId) || known) return true;
      const now = performance.now();
      if (now - readAt < 500) return false;
      readAt = now;
      known = (await runStatus(db, runId)) === 'cancelled';
      return known;
    };
  }

  async function execute(runId: string): Promise<void> {
    const run = await findRun(db, runId);
    if (!run || run.status !== 'running') return;
    const runAs = parseRunAs(run.run_as);
    const principal: Principal = principalOf(runAs);
    const ctx: ActionContext = { principal, requestId: null, ip: null };
    const refusal = await runAsRefusal(runAs, clock.now().toISOString());
    if (refusal !== null) {
      await fail(run, `refused: ${refusal}`, true);
      return;
    }
    const targets = (await targetSummaries(db, runId)).filter((t) => t.status === 'pending');
    events.publish('update_run.started', {
      asset_ids: targets.map((t) => t.asset_id),
      run_id: run.id,
      mode: run.mode,
      total: targets.length,
    });
    const isCancelled = cancellation(runId);
    const windowEnd = run.window_ends_at === null ? null : Date.parse(run.window_ends_at);
    let failures = 0;
    // Set by the work below (in callbacks the compiler does not follow).
    let stop = null as { status: 'stopped' | 'cancelled'; reason: string } | null;
    await eachInSlices(targets.length, run.concurrency, sliceSize, async (i) => {
      const target = targets[i] as (typeof targets)[number];
      if (stop === null && (await isCancelled())) stop = { status: 'cancelled', reason: 'cancelled' };
      if (stop === null && run.max_failures !== null && failures >= run.max_failures)
        stop = {
          status: 'stopped',
          reason: `stopped after ${failures} failed target(s) (max_failures ${run.max_failures})`,
        };
      if (stop === null && windowEnd !== null && clock.now().getTime() >= windowEnd)
        stop = { status: 'stopped', reason: `the maintenance window ${run.window_id ?? ''} ended` };
      if (stop !== null) {
        const status = stop.status === 'cancelled' ? 'cancelled' : 'skipped';
        const nowIso = clock.now().toISOString();
        if (
          await updateTarget(db, run.id, target.asset_id, 'pending', {
            status,
            error: stop.reason,
            finished_at: nowIso,
          })
        ) {
          events.publish('update_run.target_completed', {
            asset_ids: [target.asset_id],
            run_id: run.id,
            mode: run.mode,
            asset_id: target.asset_id,
            status,
            changes: 0,
            exit_code: null,
            reboot_required: null,
            rebooting: false,
            error: stop.reason,
          });
        }
        return;
      }
      if (await work(run, ctx, target)) failures += 1;
    });
    const final: { status: 'completed' | 'stopped' | 'cancelled'; reason: string | null } = stop ?? {
      status: 'completed',
      reason: null,
    };
    if (final.status === 'cancelled') {
      // The cancel itself ended the row; what is left is the event.
      await publishEnd(run, 'cancelled', 'cancelled');
      return;
    }
    const ended = await endRun(
      db,
      run.id,
      { status: final.status, status_reason: final.reason, finished_at: clock.now().toISOString() },
      lease.fence(),
    );
    if (ended) await publishEnd(run, final.status, final.reason);
    else if ((await runStatus(db, run.id)) === 'cancelled') await publishEnd(run, 'cancelled', 'cancelled');
    else if (!(await lease.holds())) lease.refused('update run finish');
  }

  function launch(runId: string): void {
    if (inFlight.has(runId)) return;
    const running = execute(runId)
      .catch(async (error: unknown) => {
        logger.error({ err: error, run: runId }, 'update run failed');
        const run = await findRun(db, runId);
        const message = error instanceof Error ? error.message : String(error);
        if (run) await fail(run, `the run could not go on: ${message}`, true);
      })
      .catch((error: unknown) => {
        logger.error({ err: error, run: runId }, 'update run could not be recorded as failed');
      })
      .finally(() => {
        inFlight.delete(runId);
        cancelledHere.delete(runId);
      });
    inFlight.set(runId, running);
  }

  async function pass(): Promise<void> {
    const now = clock.now();
    const nowIso = now.toISOString();
    for (const run of await dueRuns(db, nowIso, dueBatch)) {
      if (!(await claimScheduled(db, run.id, nodeId, nowIso, lease.fence()))) {
        if (!(await lease.holds())) lease.refused('update run claim');
        continue;
      }
      // A window that ended before the run could start (the hub was down): nothing starts.
      if (run.window_ends_at !== null && Date.parse(run.window_ends_at) <= now.getTime()) {
        await fail(
          { ...run, status: 'running' },
          `the maintenance window ${run.window_id ?? ''} ended before the run could start`,
          true,
        );
        continue;
      }
      launch(run.id);
    }
    await pruneRuns(db, updateRunLimits.keptRuns);
  }

  async function finishOrphans(ids: readonly string[], reason: string): Promise<number> {
    let n = 0;
    for (const id of ids) {
      const run = await findRun(db, id);
      if (!run || run.status !== 'running' || inFlight.has(id)) continue;
      const nowIso = clock.now().toISOString();
      await endPending(db, id, 'skipped', reason, nowIso);
      // Targets in the middle of their turn: their result never came back to the hub.
      await failRunning(db, id, `${reason}; the result of this target is not known`, nowIso);
      if (await endRun(db, id, { status: 'failed', status_reason: reason, finished_at: nowIso })) {
        n += 1;
        await publishEnd(run, 'failed', reason);
      }
    }
    return n;
  }

  let failing = false;
  async function runDue(): Promise<void> {
    await started;
    if (passing) return passing;
    passing = pass().finally(() => {
      passing = null;
    });
    return passing;
  }

  return {
    start() {
      started = orphanedRuns(db, liveNodes())
        .then((ids) => finishOrphans(ids, 'the hub process running this update run stopped (node gone)'))
        .then(
          (n) => {
            if (n > 0)
              logger.warn({ runs: n }, 'update runs left running by a stopped hub were finished as failed');
          },
          (error: unknown) => {
            logger.error({ err: error }, 'could not finish update runs left running');
          },
        );
      timer = setInterval(() => {
        runDue().then(
          () => {
            failing = false;
          },
          (error: unknown) => {
            if (!failing)
              logger.error({ err: error }, 'due update runs could not be read; retried at each poll');
            failing = true;
          },
        );
      }, pollMs);
      timer.unref();
    },
    runDue,
    launch,
    cancelled(runId) {
      cancelledHere.add(runId);
    },
    async idle() {
      await passing;
      await Promise.allSettled([...inFlight.values()]);
    },
    async close() {
      if (timer) clearInterval(timer);
      timer = null;
      await passing?.catch(() => undefined);
      await settleWithin(inFlight.values(), 5000);
    },
    async onNodeGone(gone) {
      const ids = await orphanedRuns(db, [], gone);
      const n = await finishOrphans(
        ids,
        `the hub process running this update run (${gone}) is gone (node gone)`,
      );
      if (n > 0)
        logger.warn(
          { runs: n, node: gone },
          'update runs of a hub process that is gone were finished as failed',
        );
    },
  };
}
