/**
 * Runs checks: one run probes the target, records the result, moves the check's state on (failures in a row,
 * up or down, the certificate's expiry) and publishes what changed. The timer runs on the one hub process that
 * holds the `checks` lease (decision 0040), and each due run is claimed by one guarded UPDATE first, so a run
 * happens once even while the lease changes hands. At most `checkLimits.concurrency` run at once; the rest
 * stay due for the next pass.
 */
import { checkLimits, newId, type CheckKind } from '@svc/protocol';
import { parseCheckTarget, runProbe } from '@svc/protocol/node/checks';
import type { Kysely } from 'kysely';
import type { AgentCaller } from '../../agents/agent-call.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import { findOutboundRefused } from '../../platform/outbound/outbound-refused.js';
import { notRun, probeFromAgent, type RunOutcome } from './check-agent-probe.js';
import {
  claimRun,
  dueChecks,
  findCheck,
  insertResult,
  trimResults,
  updateCheck,
  type CheckResultRow,
  type CheckRow,
} from './checks.repository.js';

const dayMs = 24 * 60 * 60 * 1000;

export interface CheckRunner {
  /** Runs one check now (a due run, or one asked for); resolves with its recorded result. */
  run(row: CheckRow): Promise<CheckResultRow>;
  /** One pass: claims due checks up to the free slots and starts them. */
  runDue(): Promise<void>;
  /** Runs started and not finished (tests wait for them). */
  idle(): Promise<void>;
  start(): void;
  close(): Promise<void>;
}

export interface CheckRunnerDeps {
  db: Kysely<Database>;
  clock: Clock;
  events: EventBus;
  logger: Logger;
  /** Host → address, judged by the egress guard (the live outbound client's `resolve`). */
  resolve: (host: string) => Promise<string>;
  /** The agents a check run from an agent goes to (decision 0084). */
  agents: Pick<AgentCaller, 'gateway' | 'assets' | 'notConnected'>;
  /** False while another hub process holds the `checks` lease: its timer then skips. */
  runsHere?: () => boolean;
  pollMs?: number;
  pingBinary?: string;
}

/** The state a run leaves, and what to publish about it. */
export function nextState(
  row: Pick<
    CheckRow,
    'status' | 'consecutive_failures' | 'cert_warn_days' | 'cert_warned_for' | 'cert_expires_at'
  >,
  outcome: RunOutcome,
  now: Date,
): {
  changes: Partial<CheckRow>;
  transition: 'failed' | 'recovered' | null;
  certWarning: { expiresAt: string; daysLeft: number } | null;
} {
  if (!outcome.ran) {
    // Not run: the service's state is not known, and the failures in a row are kept for when it runs again.
    const changes: Partial<CheckRow> = {
      status: 'unknown',
      last_run_at: now.toISOString(),
      last_latency_ms: null,
      last_status_code: null,
      last_error: outcome.error,
    };
    return { changes, transition: null, certWarning: null };
  }
  const failures = outcome.ok ? 0 : row.consecutive_failures + 1;
  const status = outcome.ok ? 'up' : 'down';
  // By the failures in a row, not the status: a run that could not happen in between (`unknown`) does not
  // make a service still down fail again, nor one up again skip its recovery.
  const transition =
    !outcome.ok && row.consecutive_failures === 0
      ? 'failed'
      : outcome.ok && row.consecutive_failures > 0
        ? 'recovered'
        : null;
  const changes: Partial<CheckRow> = {
    status,
    consecutive_failures: failures,
    last_run_at: now.toISOString(),
    last_latency_ms: outcome.latencyMs,
    last_status_code: outcome.statusCode,
    last_error: outcome.error,
  };
  let certWarning: { expiresAt: string; daysLeft: number } | null = null;
  const expiresAt = outcome.certExpiresAt;
  if (expiresAt !== null) {
    changes.cert_expires_at = expiresAt;
    const left = Date.parse(expiresAt) - now.getTime();
    // One warning per certificate: a renewed one (another notAfter) warns again when its time comes.
    if (left <= row.cert_warn_days * dayMs && row.cert_warned_for !== expiresAt) {
      changes.cert_warned_for = expiresAt;
      certWarning = { expiresAt, daysLeft: Math.floor(left / dayMs) };
    }
  }
  return { changes, transition, certWarning };
}

export function createCheckRunner(deps: CheckRunnerDeps): CheckRunner {
  const { db, clock, events, logger } = deps;
  const pollMs = deps.pollMs ?? 1000;
  const inFlight = new Map<string, Promise<unknown>>();
  let timer: NodeJS.Timeout | null = null;
  let passing: Promise<void> | null = null;
  let failing = false;

  async function probe(row: CheckRow): Promise<RunOutcome> {
    const parsed = parseCheckTarget(row.kind as CheckKind, row.target);
    if (!parsed.ok) return notRun(`not run: ${parsed.problem}`);
    if (row.run_from_asset_id !== null) return probeFromAgent(deps.agents, row, row.run_from_asset_id);
    const outcome = await runProbe(parsed.target, {
      timeoutMs: row.timeout_s * 1000,
      resolve: deps.resolve,
      describeRefusal: (error) => {
        const refused = findOutboundRefused(error);
        return refused ? `refused by the egress guard: ${refused.message}` : null;
      },
      origin: 'the hub',
      tlsVerify: row.tls_verify === 1,
      expect: {
        status: row.expected_status === null ? null : (JSON.parse(row.expected_status) as number[]),
        body: row.expected_body,
      },
      ...(deps.pingBinary !== undefined ? { pingBinary: deps.pingBinary } : {}),
    });
    return { ...outcome, ran: true };
  }

  async function run(row: CheckRow): Promise<CheckResultRow> {
    const outcome = await probe(row);
    const now = clock.now();
    const result: CheckResultRow = {
      id: newId('checkResult'),
      check_id: row.id,
      at: now.toISOString(),
      ran: outcome.ran ? 1 : 0,
      ok: outcome.ok ? 1 : 0,
      latency_ms: outcome.latencyMs,
      status_code: outcome.statusCode,
      error: outcome.error,
      cert_expires_at: outcome.certExpiresAt,
    };
    // The state is read again: another run (asked for by hand) may have moved it meanwhile.
    const current = (await findCheck(db, row.id)) ?? null;
    if (current === null) return result; // deleted while it ran: nothing to record
    const { changes, transition, certWarning } = nextState(current, outcome, now);
    await db.transaction().execute(async (trx) => {
      await insertResult(trx, result);
      await updateCheck(trx, row.id, changes);
    });
    await trimResults(db, row.id, checkLimits.resultsPerCheck);
    const assetIds = current.asset_id === null ? [] : [current.asset_id];
    if (transition !== null) {
      events.publish(transition === 'failed' ? 'check.failed' : 'check.recovered', {
        asset_ids: assetIds,
        check_id: current.id,
        name: current.name,
        kind: current.kind,
        target: current.target,
        consecutive_failures: changes.consecutive_failures ?? 0,
        error: outcome.error,
      });
    }
    if (certWarning !== null) {
      events.publish('check.certificate_expiring', {
        asset_ids: assetIds,
        check_id: current.id,
        name: current.name,
        target: current.target,
        cert_expires_at: certWarning.expiresAt,
        days_left: certWarning.daysLeft,
      });
    }
    return result;
  }

  /** The next run after a due one: a whole interval on, or from now when the hub fell behind (no catch-up). */
  function nextAfter(row: CheckRow, now: Date): string {
    const interval = row.interval_s * 1000;
    const due = Date.parse(row.next_run_at ?? now.toISOString());
    const next = due + interval;
    return new Date(next > now.getTime() ? next : now.getTime() + interval).toISOString();
  }

  async function pass(): Promise<void> {
    const free = checkLimits.concurrency - inFlight.size;
    if (free <= 0) return;
    const now = clock.now();
    const due = await dueChecks(db, now.toISOString(), free + inFlight.size);
    for (const row of due) {
      if (inFlight.size >= checkLimits.concurrency) break;
      if (row.next_run_at === null || inFlight.has(row.id)) continue;
      if (!(await claimRun(db, row.id, row.next_run_at, nextAfter(row, now)))) continue;
      const running = run(row)
        .catch((error: unknown) => {
          logger.error({ err: error, check: row.id }, 'service check run could not be recorded');
        })
        .finally(() => inFlight.delete(row.id));
      inFlight.set(row.id, running);
    }
  }

  function runDue(): Promise<void> {
    passing ??= pass().finally(() => {
      passing = null;
    });
    return passing;
  }

  return {
    run,
    runDue,
    async idle() {
      await passing;
      await Promise.allSettled([...inFlight.values()]);
    },
    start() {
      timer = setInterval(() => {
        if (deps.runsHere && !deps.runsHere()) return;
        runDue().then(
          () => {
            failing = false;
          },
          (error: unknown) => {
            // The database out of reach must not end the process: logged once, retried at the next poll.
            if (!failing) logger.error({ err: error }, 'due service checks could not be read; retried');
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
      await Promise.allSettled([...inFlight.values()]);
    },
  };
}
