/**
 * Remote execution: one service for REST exec now and saved actions, schedules and bulk actions later.
 * A timeout is a result, not an error; in a fan-out an offline target is a result too, while an unknown or
 * hidden target refuses the whole request before anything runs (ARCHITECTURE.md section 3, Exec).
 */
import { performance } from 'node:perf_hooks';
import {
  agentLimits,
  execLimits,
  type ExecManyRequest,
  type ExecManyResult,
  type ExecOutcome,
  type ExecRequest,
  type ExecResult,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { AgentOfflineError, AgentReplyError, AgentTimeoutError } from '../../agents/agent-gateway.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { canSeeAsset, type ActionContext, type Principal } from '../access/principal.js';
import {
  assetOffline,
  offlineMessage,
  recordIntent,
  requireHubHostAccess,
  type AgentCaller,
} from '../agent-ops/agent-call.js';
import type { AuditEntry, AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import { findAssetSummaries, type AssetSummary } from '../agent-ops/agent-ops.repository.js';

export interface ExecService {
  /** One asset: an offline asset is 409 asset_offline. */
  runOne(ctx: ActionContext, assetId: string, input: ExecRequest): Promise<ExecResult>;
  /** `targets` (wins) or `group`; one result per asset, in the order of the targets. */
  runMany(ctx: ActionContext, input: ExecManyRequest): Promise<ExecManyResult>;
  /** Already-resolved targets (saved actions, schedules): the same checks and results as runMany. */
  runOnAssets(ctx: ActionContext, assetIds: readonly string[], input: ExecRequest): Promise<ExecManyResult>;
}

export interface ExecServiceDeps {
  db: Kysely<Database>;
  audit: AuditService;
  agents: AgentCaller;
  groups: Pick<GroupService, 'members'>;
  events: EventBus;
  /** Commands in flight at once in a fan-out (the gateway is asynchronous: thousands are fine). */
  concurrency?: number;
  /** How much longer than the command's timeout the hub waits for the agent's answer. */
  replyMarginMs?: number;
}

const auditedCommandChars = 1024;

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

/** Caps a stream at `max` UTF-8 bytes without splitting a character. */
export function capStream(
  text: string,
  max: number = execLimits.streamBytes,
): { text: string; cut: boolean } {
  // A string of n UTF-16 units is at most 3n UTF-8 bytes: short output needs no encoding at all.
  if (text.length * 3 <= max) return { text, cut: false };
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return { text, cut: false };
  let end = max;
  // Back off continuation bytes (10xxxxxx) so the cut falls on a character boundary.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end -= 1;
  return { text: bytes.subarray(0, end).toString('utf8'), cut: true };
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

function summarize(results: ExecResult[]): ExecManyResult {
  const summary = { total: results.length, ok: 0, timeout: 0, offline: 0, error: 0 };
  for (const r of results) summary[r.status] += 1;
  return { results, summary };
}

/** Runs `work` over 0..n-1 with at most `limit` in flight; results keep their index. */
async function boundedMap<T>(n: number, limit: number, work: (i: number) => Promise<T>): Promise<T[]> {
  const results = new Array<T>(n);
  let next = 0;
  const worker = async () => {
    while (next < n) {
      const i = next;
      next += 1;
      results[i] = await work(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(n, Math.max(1, limit)) }, worker));
  return results;
}

export function createExecService(deps: ExecServiceDeps): ExecService {
  const { db, audit, agents, groups, events } = deps;
  const concurrency = deps.concurrency ?? 10_000;
  const marginMs = deps.replyMarginMs ?? 10_000;

  function auditEntry(row: AssetSummary, plan: ExecPlan, fanOut: number | null): AuditEntry {
    return {
      action: 'exec.run',
      targetType: 'asset',
      targetId: row.id,
      assetId: row.id,
      detail: {
        command: plan.command.slice(0, auditedCommandChars),
        command_bytes: Buffer.byteLength(plan.command, 'utf8'),
        timeout: plan.timeoutS,
        ...(fanOut !== null ? { fan_out: fanOut } : {}),
      },
    };
  }

  /** Sends one command; every failure except an unexpected bug becomes a result. */
  async function execute(row: AssetSummary, plan: ExecPlan): Promise<ExecResult> {
    const started = performance.now();
    let result: ExecResult;
    try {
      const outcome = await agents.gateway.request(
        row.id,
        'exec.run',
        {
          command: plan.command,
          timeout_ms: plan.timeoutS * 1000,
          max_output_bytes: agentLimits.execStreamBytes,
        },
        { timeoutMs: plan.timeoutS * 1000 + marginMs },
      );
      result = resultOf(row.id, outcome, plan);
    } catch (error) {
      const elapsed = performance.now() - started;
      if (error instanceof AgentOfflineError) {
        result = failed(row.id, 'offline', offlineMessage(row), elapsed);
      } else if (error instanceof AgentTimeoutError) {
        result = failed(row.id, 'timeout', `the agent did not answer within ${plan.timeoutS} s`, elapsed);
      } else if (error instanceof AgentReplyError) {
        const status = error.code === 'timeout' ? 'timeout' : 'error';
        result = failed(row.id, status, `${error.code}: ${error.message}`, elapsed);
      } else {
        throw error;
      }
    }
    events.publish(
      'exec.completed',
      {
        asset_id: row.id,
        status: result.status,
        exit_code: result.exit_code,
        duration_ms: result.duration_ms,
        truncated: result.truncated,
      },
      row.id,
    );
    return result;
  }

  /** Target rows in request order; any id the principal cannot see or that does not exist is a 404. */
  async function resolveTargets(principal: Principal, ids: readonly string[]): Promise<AssetSummary[]> {
    const unique = [...new Set(ids)];
    const rows = await findAssetSummaries(
      db,
      unique.filter((id) => canSeeAsset(principal, id)),
    );
    const byId = new Map(rows.map((r) => [r.id, r]));
    const unknown = unique.filter((id) => !byId.has(id));
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

  async function runRows(ctx: ActionContext, rows: AssetSummary[], plan: ExecPlan): Promise<ExecManyResult> {
    // Decided once: a target audited as sent is the one that is sent, and an offline one is never tried.
    const online = rows.filter((r) => agents.isOnline(r.id));
    const sending = new Set(online.map((r) => r.id));
    await recordIntent(
      db,
      audit,
      ctx,
      online.map((r) => auditEntry(r, plan, rows.length)),
    );
    const results = await boundedMap(rows.length, concurrency, (i) => {
      const row = rows[i] as AssetSummary;
      if (!sending.has(row.id)) return Promise.resolve(failed(row.id, 'offline', offlineMessage(row), 0));
      return execute(row, plan);
    });
    return summarize(results);
  }

  return {
    async runOne(ctx, assetId, input) {
      const plan = planOf(input);
      const row = await agents.loadAsset(ctx.principal, assetId, 'exec.run');
      agents.requireOnline(row);
      await recordIntent(db, audit, ctx, [auditEntry(row, plan, null)]);
      const result = await execute(row, plan);
      // A single target that went away mid-call is the same 409 as one that was never there.
      if (result.status === 'offline') throw assetOffline(row);
      return result;
    },

    async runMany(ctx, input) {
      const plan = planOf(input);
      let ids: readonly string[];
      if (input.targets !== undefined) ids = input.targets;
      else if (input.group !== undefined) {
        const members = await groups.members(ctx.principal, input.group);
        ids = members.filter((id) => canSeeAsset(ctx.principal, id));
      } else {
        throw validationError('targets', 'give targets (asset ids) or group (a group id)');
      }
      if (ids.length === 0) {
        throw validationError(
          input.targets !== undefined ? 'targets' : 'group',
          'the target set is empty; nothing was run',
        );
      }
      return runRows(ctx, await resolveTargets(ctx.principal, ids), plan);
    },

    async runOnAssets(ctx, assetIds, input) {
      const plan = planOf(input);
      if (assetIds.length === 0) throw validationError('targets', 'the target set is empty; nothing was run');
      return runRows(ctx, await resolveTargets(ctx.principal, assetIds), plan);
    },
  };
}
