/**
 * Remote execution: one service for REST exec now and saved actions, schedules and bulk actions later.
 * A timeout is a result, not an error; in a fan-out an offline target is a result too, while an unknown or
 * hidden target refuses the whole request before anything runs (ARCHITECTURE.md section 3, Exec).
 */
import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import { performance } from 'node:perf_hooks';
import {
  agentLimits,
  execLimits,
  type ExecManyRequest,
  type ExecManyResult,
  type ExecOutcome,
  type ExecRequest,
  type ExecResult,
  type ExecSummary,
} from '@svc/protocol';
import { policyDisabled } from '../../platform/policy-error.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  ClusterUnavailableCallError,
  requestEach,
} from '../../agents/agent-gateway.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import {
  assetOffline,
  clusterUnavailable,
  offlineMessage,
  requireHubHostAccess,
  type AgentCaller,
} from '../../agents/agent-call.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import type { AssetSummary } from '../../agents/asset-reads.js';
import { capStream, ResultBudget } from './result-budget.js';
import { eachInSlices, fanOutSlice } from '../../platform/slices.js';
import { setImmediate as nextTurn } from 'node:timers/promises';

export { capStream } from './result-budget.js';

/**
 * A fan-out checked, resolved and audited, not yet sent. `run` at once: the audit already says every online
 * target was sent the command.
 */
export interface FanOut {
  /** Targets, in request order. */
  readonly total: number;
  /** Bounds the results held at once (execLimits.fanOutResultBytes unless the service was given another). */
  readonly budget: ResultBudget;
  /**
   * Sends the command and hands over each result as it arrives, already admitted to `budget` (a receiver
   * that lets results go releases their bytes). Sending never waits for the receiver, so a slow reader
   * cannot hold commands back; the budget bounds what it makes the hub keep.
   */
  run(onResult: (result: ExecResult, bytes: number, index: number) => void): Promise<ExecSummary>;
  /** Audits a client that went away mid-stream: the commands it started keep running to their end. */
  recordClientGone(delivered: number): Promise<void>;
}

export interface ExecService {
  /** One asset: an offline asset is 409 asset_offline. */
  runOne(ctx: ActionContext, assetId: string, input: ExecRequest): Promise<ExecResult>;
  /** `targets` (wins) or `group`; one result per asset, in the order of the targets. */
  runMany(ctx: ActionContext, input: ExecManyRequest): Promise<ExecManyResult>;
  /** runMany's checks and audit, for a caller that streams the results (NDJSON). */
  startMany(ctx: ActionContext, input: ExecManyRequest): Promise<FanOut>;
  /** Already-resolved targets (saved actions, schedules): the same checks and results as runMany. */
  runOnAssets(ctx: ActionContext, assetIds: readonly string[], input: ExecRequest): Promise<ExecManyResult>;
}

export interface ExecServiceDeps {
  audit: AuditService;
  agents: AgentCaller;
  groups: Pick<GroupService, 'members'>;
  events: EventBus;
  /** Commands in flight at once in a fan-out (the gateway is asynchronous: thousands are fine). */
  concurrency?: number;
  /** Targets sent per turn of the event loop (fanOutSlice by default; tests lower it). */
  sliceSize?: number;
  /** How much longer than the command's timeout the hub waits for the agent's answer. */
  replyMarginMs?: number;
  /** stdout + stderr bytes a fan-out may hold (tests lower it); execLimits.fanOutResultBytes by default. */
  resultBudgetBytes?: number;
  /** `policy.structured_enabled`, read live at every call; absent means on. */
  structuredEnabled?: () => boolean;
  /** Counts fan-outs, their targets and duration (the hub's /metrics). */
  telemetry?: Pick<Telemetry, 'fanOut'>;
}

const auditedCommandChars = 1024;
/** Targets looked up, and audit rows written, per turn of the event loop. */
const auditSlice = 1000;

interface ExecPlan {
  command: string;
  timeoutS: number;
}

function planOf(input: ExecRequest): ExecPlan {
  const timeoutS = input.timeout ?? execLimits.defaultTimeout;
  if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > execLimits.maxTimeout) {
    throw validationError('timeout', `must be an integer from 1 to ${execLimits.maxTimeout} seconds`);
  }
  if (input.command.length === 0) throw validationError('command', 'must not be empty');
  if (Buffer.byteLength(input.command, 'utf8') > execLimits.commandBytes) {
    throw validationError('command', `must be at most ${execLimits.commandBytes} bytes`);
  }
  return { command: input.command, timeoutS };
}

function resultOf(assetId: string, outcome: ExecOutcome, plan: ExecPlan): ExecResult {
  const stdout = capStream(outcome.stdout);
  const stderr = capStream(outcome.stderr);
  let error: string | null = null;
  if (outcome.timed_out) error = `the command did not finish within ${plan.timeoutS} s`;
  else if (outcome.exit_code === null && outcome.signal)
    error = `the command was terminated by ${outcome.signal}`;
  return {
    asset_id: assetId,
    status: outcome.timed_out ? 'timeout' : 'ok',
    exit_code: outcome.exit_code,
    stdout: stdout.text,
    stderr: stderr.text,
    truncated: outcome.truncated || stdout.cut || stderr.cut,
    duration_ms: outcome.duration_ms,
    error,
    ...(outcome.left_running ? { left_running: outcome.left_running } : {}),
  };
}

function failed(
  assetId: string,
  status: ExecResult['status'],
  error: string,
  durationMs: number,
): ExecResult {
  return {
    asset_id: assetId,
    status,
    exit_code: null,
    stdout: '',
    stderr: '',
    truncated: false,
    duration_ms: Math.max(0, Math.round(durationMs)),
    error,
  };
}

export function createExecService(deps: ExecServiceDeps): ExecService {
  const { audit, agents, groups, events } = deps;
  const concurrency = deps.concurrency ?? 10_000;
  const sliceSize = deps.sliceSize ?? fanOutSlice;
  const marginMs = deps.replyMarginMs ?? 10_000;
  const budgetBytes = deps.resultBudgetBytes ?? execLimits.fanOutResultBytes;
  /**
   * Results of targets another process holds that the cluster bus could not reach: an error in a fan-out
   * (`cluster_unavailable: …`), the 503 itself for a single target.
   */
  const unreachable = new WeakSet<ExecResult>();

  /** A target's result when the cluster bus cannot reach the process holding its agent. */
  function unreachableResult(row: AssetSummary, durationMs: number): ExecResult {
    const result = failed(
      row.id,
      'error',
      `cluster_unavailable: ${clusterUnavailable(row).message}`,
      durationMs,
    );
    unreachable.add(result);
    return result;
  }

  /** A target not sent: offline, or (bus down, held by another process) unreachable. */
  function notSent(row: AssetSummary): ExecResult {
    return agents.notConnected(row).code === 'cluster_unavailable'
      ? unreachableResult(row, 0)
      : failed(row.id, 'offline', offlineMessage(row), 0);
  }

  /** What every target's audit row of one command says (one object, written as JSON once). */
  function auditDetail(plan: ExecPlan, fanOut: number | null): Record<string, unknown> {
    return {
      command: plan.command.slice(0, auditedCommandChars),
      command_bytes: Buffer.byteLength(plan.command, 'utf8'),
      timeout: plan.timeoutS,
      ...(fanOut !== null ? { fan_out: fanOut } : {}),
    };
  }

  function auditEntry(row: AssetSummary, detail: Record<string, unknown>): AuditEntry {
    return { action: 'exec.run', targetType: 'asset', targetId: row.id, assetId: row.id, detail };
  }

  const payloadOf = (plan: ExecPlan) => ({
    command: plan.command,
    timeout_ms: plan.timeoutS * 1000,
    max_output_bytes: agentLimits.execStreamBytes,
  });
  const optionsOf = (plan: ExecPlan) => ({ timeoutMs: plan.timeoutS * 1000 + marginMs });

  /**
   * Sends a fan-out's commands together: those asked for in one synchronous run (a slice of `eachInSlices`,
   * cut short where it waits for room under `concurrency`) go in one `requestEach`, so the targets another
   * process holds travel in one batch per holder rather than one bus request each (decision 0057).
   */
  function together(plan: ExecPlan): (row: AssetSummary) => Promise<ExecOutcome> {
    let queue: { assetId: string; resolve: (o: ExecOutcome) => void; reject: (e: unknown) => void }[] = [];
    // One payload object for every target: the gateway checks and serialises it once per batch.
    const payload = payloadOf(plan);
    const options = optionsOf(plan);
    const flush = () => {
      const batch = queue;
      queue = [];
      try {
        const outcomes = requestEach(
          agents.gateway,
          'exec.run',
          batch.map((q) => ({ assetId: q.assetId, payload })),
          options,
        );
        batch.forEach((q, k) => {
          (outcomes[k] as Promise<ExecOutcome>).then(q.resolve, q.reject);
        });
      } catch (error) {
        for (const q of batch) q.reject(error);
      }
    };
    return (row) =>
      new Promise<ExecOutcome>((resolve, reject) => {
        if (queue.length === 0) queueMicrotask(flush);
        queue.push({ assetId: row.id, resolve, reject });
      });
  }

  /**
   * One command's result; every failure except an unexpected bug becomes a result. `send` sends it with the
   * others of its slice (`together`); absent, it goes alone.
   */
  async function execute(
    row: AssetSummary,
    plan: ExecPlan,
    send?: (row: AssetSummary) => Promise<ExecOutcome>,
  ): Promise<ExecResult> {
    const started = performance.now();
    let result: ExecResult;
    try {
      const outcome = await (send?.(row) ??
        agents.gateway.request(row.id, 'exec.run', payloadOf(plan), optionsOf(plan)));
      result = resultOf(row.id, outcome, plan);
    } catch (error) {
      const elapsed = performance.now() - started;
      if (error instanceof AgentOfflineError) {
        result = failed(row.id, 'offline', offlineMessage(row), elapsed);
      } else if (error instanceof ClusterUnavailableCallError) {
        result = unreachableResult(row, elapsed);
      } else if (error instanceof AgentTimeoutError) {
        result = failed(row.id, 'timeout', `the agent did not answer within ${plan.timeoutS} s`, elapsed);
      } else if (error instanceof AgentReplyError) {
        const status = error.code === 'timeout' ? 'timeout' : 'error';
        result = failed(row.id, status, `${error.code}: ${error.message}`, elapsed);
      } else {
        throw error;
      }
    }
    events.publish('exec.completed', {
      asset_ids: [row.id],
      asset_id: row.id,
      status: result.status,
      exit_code: result.exit_code,
      duration_ms: result.duration_ms,
      truncated: result.truncated,
    });
    return result;
  }

  /**
   * Target rows in request order; any id the principal cannot see or that does not exist is a 404. Ids from a
   * group are the hub's, not the caller's: `group` names the group instead, so the 404 shows no hidden id.
   */
  async function resolveTargets(
    principal: Principal,
    ids: readonly string[],
    group?: string,
  ): Promise<AssetSummary[]> {
    const unique = [...new Set(ids)];
    const visible = unique.filter((id) => canSeeAsset(principal, id));
    const rows: AssetSummary[] = [];
    for (let i = 0; i < visible.length; i += auditSlice) {
      if (i > 0) await nextTurn();
      rows.push(...(await agents.assets.summaries(visible.slice(i, i + auditSlice))));
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    const unknown = unique.filter((id) => !byId.has(id));
    if (unknown.length > 0 && group !== undefined) {
      throw new HubError('not_found', `group ${group} has members outside this key's allowed assets`);
    }
    if (unknown.length > 0) {
      const shown = unknown.slice(0, 20).join(', ');
      const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
      throw new HubError('not_found', `unknown targets: ${shown}${more}`);
    }
    const targets = unique.map((id) => byId.get(id)).filter((r): r is AssetSummary => r !== undefined);
    // Nothing runs when one target is the hub's host and the caller is not an admin.
    for (const row of targets) requireHubHostAccess(principal, row, 'exec.run');
    return targets;
  }

  async function startRows(ctx: ActionContext, rows: AssetSummary[], plan: ExecPlan): Promise<FanOut> {
    // Decided once: a target audited as sent is the one that is sent, and an offline one is never tried.
    const online = rows.filter((r) => agents.isOnline(r.id));
    const sending = new Set(online.map((r) => r.id));
    const detail = auditDetail(plan, rows.length);
    // In slices with a turn of the event loop between them: on SQLite each insert is synchronous, and ten
    // thousand rows in one go held the loop for most of a second. Every row is written before anything is sent.
    for (let i = 0; i < online.length; i += auditSlice) {
      if (i > 0) await nextTurn();
      await audit.recordIntent(
        ctx,
        online.slice(i, i + auditSlice).map((r) => auditEntry(r, detail)),
      );
    }
    let completed = 0;
    const budget = new ResultBudget(budgetBytes);
    return {
      total: rows.length,
      budget,
      async run(onResult) {
        const summary: ExecSummary = { total: rows.length, ok: 0, timeout: 0, offline: 0, error: 0 };
        const started = performance.now();
        const send = together(plan);
        await eachInSlices(rows.length, concurrency, sliceSize, async (i) => {
          const row = rows[i] as AssetSummary;
          const result = sending.has(row.id) ? await execute(row, plan, send) : notSent(row);
          completed += 1;
          summary[result.status] += 1;
          // The agent's full answer is dropped here: only what the budget admits lives on.
          const admitted = budget.admit(result);
          onResult(admitted.result, admitted.bytes, i);
        });
        deps.telemetry?.fanOut(rows.length, (performance.now() - started) / 1000);
        return summary;
      },
      async recordClientGone(delivered) {
        await audit.recordIntent(ctx, [
          {
            action: 'exec.client_gone',
            detail: {
              command: plan.command.slice(0, auditedCommandChars),
              fan_out: rows.length,
              sent: online.length,
              completed,
              delivered,
            },
          },
        ]);
      },
    };
  }

  /** The fan-out answered as one body: every result held, so the budget is the body's bound. */
  async function collect(fanOut: FanOut): Promise<ExecManyResult> {
    const results = new Array<ExecResult>(fanOut.total);
    const summary = await fanOut.run((result, _bytes, i) => {
      results[i] = result;
    });
    return { results, summary };
  }

  async function startMany(ctx: ActionContext, input: ExecManyRequest): Promise<FanOut> {
    const plan = planOf(input);
    let ids: readonly string[];
    if (input.targets !== undefined) ids = input.targets;
    else if (input.group !== undefined) {
      // A group is its members: one outside the caller's allowed assets refuses the whole request below.
      ids = await groups.members(ctx.principal, input.group);
    } else {
      throw validationError('targets', 'give targets (asset ids) or group (a group id)');
    }
    if (ids.length === 0) {
      throw validationError(
        input.targets !== undefined ? 'targets' : 'group',
        'the target set is empty; nothing was run',
      );
    }
    const group = input.targets === undefined ? input.group : undefined;
    return startRows(ctx, await resolveTargets(ctx.principal, ids, group), plan);
  }

  /** Every way into exec (single, fan-out, saved actions, schedules) passes here first. */
  function requireStructured(): void {
    if (deps.structuredEnabled && !deps.structuredEnabled())
      throw policyDisabled('policy.structured_enabled');
  }

  return {
    async runOne(ctx, assetId, input) {
      requireStructured();
      const plan = planOf(input);
      const row = await agents.loadAsset(ctx.principal, assetId, 'exec.run');
      agents.requireOnline(row);
      await audit.recordIntent(ctx, [auditEntry(row, auditDetail(plan, null))]);
      const result = await execute(row, plan);
      // A single target that went away mid-call is the same 409 as one that was never there.
      if (result.status === 'offline') throw assetOffline(row);
      if (unreachable.has(result)) throw clusterUnavailable(row);
      return result;
    },

    async runMany(ctx, input) {
      requireStructured();
      return collect(await startMany(ctx, input));
    },

    async startMany(ctx, input) {
      requireStructured();
      return startMany(ctx, input);
    },

    async runOnAssets(ctx, assetIds, input) {
      requireStructured();
      const plan = planOf(input);
      if (assetIds.length === 0) throw validationError('targets', 'the target set is empty; nothing was run');
      return collect(await startRows(ctx, await resolveTargets(ctx.principal, assetIds), plan));
    },
  };
}
