/**
 * Package updates (decision 0081): each asset's stored report and the fleet view over them, a refresh asked of
 * one agent, and update runs: checked, resolved to their targets, recorded and audited here, executed by the
 * runner (update-runner.ts).
 */
import {
  newId,
  updateRunLimits,
  type AgentRequestResult,
  type AssetUpdateStatus,
  type AssetUpdates,
  type UpdateRun,
  type UpdateRunCreate,
  type UpdateRunDetail,
  type UpdateRunsQuery,
  type UpdateTargetResult,
  type UpdatesFleetQuery,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import { canSeeAsset, isAdmin, type ActionContext, type Principal } from '../../access/principal.js';
import { requireHubHostAccess, type AgentCaller } from '../../agents/agent-call.js';
import type { AssetSummary } from '../../agents/asset-reads.js';
import type { Clock } from '../../platform/clock.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import type { AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import type { MaintenanceService } from '../maintenance/maintenance.service.js';
import { runAsOf } from '../schedules/schedules.presenter.js';
import type { UpdateRunner } from './update-runner.js';
import {
  countsFrom,
  emptyCounts,
  emptyReport,
  pendingTarget,
  presentAssetUpdates,
  presentRun,
  presentStatus,
  presentTargetResult,
  presentTargetSummary,
} from './updates.presenter.js';
import {
  countsOf,
  endPending,
  endRun,
  findReport,
  findRun,
  findTarget,
  forgetAsset,
  insertRun,
  listReports,
  listRuns,
  recordReportError,
  targetIdsOf,
  targetSummaries,
  upsertReport,
  type UpdateReportRow,
  type UpdateRunRow,
} from './updates.repository.js';

export interface UpdatesService {
  fleet(principal: Principal, query: UpdatesFleetQuery, page: PageRequest): Promise<Page<AssetUpdateStatus>>;
  asset(principal: Principal, assetId: string): Promise<AssetUpdates>;
  refresh(ctx: ActionContext, assetId: string): Promise<AssetUpdates>;
  create(ctx: ActionContext, input: UpdateRunCreate): Promise<UpdateRun>;
  list(principal: Principal, query: UpdateRunsQuery, page: PageRequest): Promise<Page<UpdateRun>>;
  get(principal: Principal, id: string): Promise<UpdateRunDetail>;
  result(principal: Principal, id: string, assetId: string): Promise<UpdateTargetResult>;
  cancel(ctx: ActionContext, id: string): Promise<UpdateRun>;
  /** Stores an agent's report (the reporter and the refresh), publishing `updates.changed` when it moved. */
  recordReport(assetId: string, result: AgentRequestResult<'updates.list'>): Promise<UpdateReportRow>;
  recordError(assetId: string, error: string): Promise<void>;
  forgetAsset(assetId: string): Promise<void>;
}

export interface UpdatesServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  agents: AgentCaller;
  groups: Pick<GroupService, 'members'>;
  maintenance: Pick<MaintenanceService, 'nextCovering'>;
  runner: Pick<UpdateRunner, 'launch' | 'cancelled'>;
  /** This process's node id, on the runs it starts (decision 0040). */
  nodeId?: string | null;
}

/** Waiting for an agent's listing (with a refresh of the manager's lists first). */
export const listTimeoutMs = 10 * 60_000;

function notFoundRun(id: string): HubError {
  return new HubError('not_found', `no update run ${id}`);
}

function checkShape(input: UpdateRunCreate, now: Date): void {
  if (input.targets !== undefined && input.group !== undefined)
    throw validationError('targets', 'give targets (asset ids) or group, not both');
  if (input.targets === undefined && input.group === undefined)
    throw validationError('targets', 'give targets (asset ids) or group (a group id)');
  const packages = input.packages ?? [];
  if (input.selection === 'named' && packages.length === 0)
    throw validationError('packages', 'selection "named" needs at least one package name');
  if (input.selection !== 'named' && packages.length > 0)
    throw validationError('packages', 'package names go with selection "named" only');
  if (input.mode === 'dry_run' && input.reboot_if_required === true)
    throw validationError('reboot_if_required', 'a dry run changes nothing and never reboots');
  const start = input.start ?? 'now';
  if (start === 'at') {
    if (input.scheduled_at === undefined)
      throw validationError('scheduled_at', 'start "at" needs scheduled_at');
    const at = Date.parse(input.scheduled_at);
    if (Number.isNaN(at)) throw validationError('scheduled_at', 'is not a date-time');
    if (at < now.getTime() - 60_000) throw validationError('scheduled_at', 'is in the past');
    if (at > now.getTime() + updateRunLimits.maxScheduleAheadDays * 86_400_000)
      throw validationError(
        'scheduled_at',
        `is more than ${updateRunLimits.maxScheduleAheadDays} days ahead`,
      );
  } else if (input.scheduled_at !== undefined) {
    throw validationError('scheduled_at', 'goes with start "at" only');
  }
}

export function createUpdatesService(deps: UpdatesServiceDeps): UpdatesService {
  const { db, clock, audit, events, agents, groups, maintenance, runner } = deps;
  const nodeId = deps.nodeId ?? null;

  async function namesOf(ids: readonly string[]): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (let i = 0; i < ids.length; i += 1000) {
      for (const [id, name] of await agents.assets.names(ids.slice(i, i + 1000))) out.set(id, name);
    }
    return out;
  }

  /** Target rows in request order; unknown or hidden ids are a 404, the hub's host needs an admin. */
  async function resolveTargets(principal: Principal, input: UpdateRunCreate): Promise<AssetSummary[]> {
    let ids: readonly string[];
    if (input.targets !== undefined) ids = input.targets;
    else ids = await groups.members(principal, input.group ?? '');
    if (ids.length === 0)
      throw validationError(input.targets ? 'targets' : 'group', 'the target set is empty');
    if (ids.length > updateRunLimits.groupTargets)
      throw validationError('group', `has more than ${updateRunLimits.groupTargets} members`);
    const unique = [...new Set(ids)];
    const visible = unique.filter((id) => canSeeAsset(principal, id));
    const rows: AssetSummary[] = [];
    for (let i = 0; i < visible.length; i += 1000) {
      rows.push(...(await agents.assets.summaries(visible.slice(i, i + 1000))));
    }
    const byId = new Map(rows.map((r) => [r.id, r]));
    const unknown = unique.filter((id) => !byId.has(id));
    if (unknown.length > 0 && input.targets === undefined)
      throw new HubError(
        'not_found',
        `group ${input.group ?? ''} has members outside this key's allowed assets`,
      );
    if (unknown.length > 0) {
      const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
      throw new HubError('not_found', `unknown targets: ${unknown.slice(0, 20).join(', ')}${more}`);
    }
    const targets = unique.map((id) => byId.get(id) as AssetSummary);
    for (const row of targets) requireHubHostAccess(principal, row, 'updates.apply');
    return targets;
  }

  /** A caller limited to some assets sees a run only when it may see every target of it. */
  function visibleRun(principal: Principal, targetIds: readonly string[] | undefined): boolean {
    if (principal.allowedAssets === null) return true;
    return (targetIds ?? []).every((id) => canSeeAsset(principal, id));
  }

  async function loadRun(principal: Principal, id: string): Promise<UpdateRunRow> {
    const row = await findRun(db, id);
    if (!row) throw notFoundRun(id);
    if (principal.allowedAssets !== null) {
      const ids = (await targetIdsOf(db, [id])).get(id);
      if (!visibleRun(principal, ids)) throw notFoundRun(id);
    }
    return row;
  }

  async function present(rows: readonly UpdateRunRow[]): Promise<UpdateRun[]> {
    const counts = await countsOf(
      db,
      rows.map((r) => r.id),
    );
    return rows.map((r) => presentRun(r, countsFrom(counts.get(r.id))));
  }

  async function recordReport(
    assetId: string,
    result: AgentRequestResult<'updates.list'>,
  ): Promise<UpdateReportRow> {
    const before = await findReport(db, assetId);
    const nowIso = clock.now().toISOString();
    const security = result.updates.filter((u) => u.security).length;
    const row: UpdateReportRow = {
      asset_id: assetId,
      manager: result.manager,
      updates: result.updates.length,
      security_updates: security,
      truncated: result.truncated ? 1 : 0,
      reboot_required: result.reboot_required ? 1 : 0,
      last_patched_at: result.last_patched_at,
      checked_at: nowIso,
      reported_at: nowIso,
      error:
        result.manager === null ? 'the agent found no package manager it can drive on this machine' : null,
      packages: JSON.stringify(result.updates),
    };
    await upsertReport(db, row);
    const moved =
      before?.updates !== row.updates ||
      before.security_updates !== row.security_updates ||
      before.reboot_required !== row.reboot_required;
    if (moved && result.manager !== null) {
      events.publish('updates.changed', {
        asset_ids: [assetId],
        asset_id: assetId,
        updates: row.updates ?? 0,
        security_updates: security,
        reboot_required: result.reboot_required,
      });
    }
    return row;
  }

  return {
    async fleet(principal, query, page) {
      let ids: string[] | null = principal.allowedAssets === null ? null : [...principal.allowedAssets];
      if (query.group !== undefined) {
        const members = await groups.members(principal, query.group);
        ids = members.filter((id) => canSeeAsset(principal, id));
      }
      const { rows, total } = await listReports(
        db,
        {
          assetIds: ids,
          needsUpdates: query.needs_updates,
          security: query.security,
          rebootRequired: query.reboot_required,
          supported: query.supported,
        },
        pageWindow(page),
      );
      const names = await namesOf(rows.map((r) => r.asset_id));
      return toPage(
        rows.map((r) => presentStatus(r, names.get(r.asset_id) ?? r.asset_id)),
        total,
        page,
      );
    },

    async asset(principal, assetId) {
      if (!canSeeAsset(principal, assetId)) throw new HubError('not_found', `no asset ${assetId}`);
      const name = (await agents.assets.names([assetId])).get(assetId);
      if (name === undefined) throw new HubError('not_found', `no asset ${assetId}`);
      return presentAssetUpdates((await findReport(db, assetId)) ?? emptyReport(assetId), name);
    },

    async refresh(ctx, assetId) {
      const row = await agents.loadAsset(ctx.principal, assetId, 'updates.list');
      agents.requireOnline(row);
      await audit.recordIntent(ctx, [
        { action: 'updates.refresh', targetType: 'asset', targetId: row.id, assetId: row.id },
      ]);
      const result = await agents.call(row, 'updates.list', { refresh: true }, { timeoutMs: listTimeoutMs });
      return presentAssetUpdates(await recordReport(row.id, result), row.name);
    },

    async create(ctx, input) {
      const now = clock.now();
      checkShape(input, now);
      const targets = await resolveTargets(ctx.principal, input);
      const start = input.start ?? 'now';
      let scheduledAt: string | null = start === 'at' ? (input.scheduled_at ?? null) : null;
      let window: { id: string; endsAt: string } | null = null;
      if (start === 'next_window') {
        const found = await maintenance.nextCovering(
          targets.map((t) => t.id),
          now,
        );
        if (found === null)
          throw new HubError(
            'conflict',
            'no maintenance window holds every target of this run: create one (docs/maintenance.md) or start the run now or at a time',
          );
        window = { id: found.windowId, endsAt: found.end.toISOString() };
        scheduledAt = found.start.getTime() <= now.getTime() ? now.toISOString() : found.start.toISOString();
      }
      const runsNow = start === 'now' || (scheduledAt !== null && Date.parse(scheduledAt) <= now.getTime());
      const nowIso = now.toISOString();
      const id = newId('updateRun');
      const row: UpdateRunRow = {
        id,
        mode: input.mode,
        selection: input.selection,
        packages: JSON.stringify(input.packages ?? []),
        reboot_if_required: input.reboot_if_required === true ? 1 : 0,
        refresh: input.refresh === false ? 0 : 1,
        concurrency: input.concurrency ?? updateRunLimits.defaultConcurrency,
        max_failures: input.max_failures ?? null,
        timeout_minutes: input.timeout_minutes ?? updateRunLimits.defaultTimeoutMinutes,
        targets: input.targets !== undefined ? JSON.stringify(input.targets) : null,
        group_id: input.targets === undefined ? (input.group ?? null) : null,
        start,
        scheduled_at: scheduledAt,
        window_id: window?.id ?? null,
        window_ends_at: window?.endsAt ?? null,
        status: runsNow ? 'running' : 'scheduled',
        status_reason: null,
        run_as: JSON.stringify(runAsOf(ctx.principal)),
        created_by: ctx.principal.userId ?? ctx.principal.key?.id ?? 'unknown',
        created_at: nowIso,
        started_at: runsNow ? nowIso : null,
        finished_at: null,
        node_id: runsNow ? nodeId : null,
      };
      const targetRows = targets.map((t, i) => pendingTarget(id, t.id, t.name, i));
      await db.transaction().execute(async (trx) => {
        await insertRun(trx, row, targetRows);
        await audit.record(trx, ctx, {
          action: 'update_run.created',
          targetType: 'update_run',
          targetId: id,
          detail: {
            mode: row.mode,
            selection: row.selection,
            packages: (input.packages ?? []).slice(0, 50),
            targets: targets.length,
            group: row.group_id,
            start,
            scheduled_at: scheduledAt,
            window_id: row.window_id,
            reboot_if_required: row.reboot_if_required === 1,
            by_admin: isAdmin(ctx.principal),
          },
        });
      });
      if (runsNow) runner.launch(id);
      return presentRun(row, { ...emptyCounts(), total: targets.length, pending: targets.length });
    },

    async list(principal, query, page) {
      const filter = { status: query.status, mode: query.mode, asset: query.asset };
      if (query.asset !== undefined && !canSeeAsset(principal, query.asset)) return toPage([], 0, page);
      if (principal.allowedAssets === null) {
        const { rows, total } = await listRuns(db, filter, pageWindow(page));
        return toPage(await present(rows), total, page);
      }
      // Limited to some assets: the runs it may see, read whole (the hub keeps a bounded number) and paged here.
      const { rows } = await listRuns(db, filter, { limit: updateRunLimits.keptRuns * 2, offset: 0 });
      const targets = await targetIdsOf(
        db,
        rows.map((r) => r.id),
      );
      const visible = rows.filter((r) => visibleRun(principal, targets.get(r.id)));
      const { limit, offset } = pageWindow(page);
      return toPage(await present(visible.slice(offset, offset + limit)), visible.length, page);
    },

    async get(principal, id) {
      const row = await loadRun(principal, id);
      const [run] = await present([row]);
      const results = (await targetSummaries(db, id)).map(presentTargetSummary);
      return { ...(run as UpdateRun), results };
    },

    async result(principal, id, assetId) {
      const row = await loadRun(principal, id);
      const target = await findTarget(db, id, assetId);
      if (!target) throw new HubError('not_found', `asset ${assetId} is not a target of update run ${id}`);
      return presentTargetResult(target, row.mode === 'apply' ? 'apply' : 'dry_run');
    },

    async cancel(ctx, id) {
      const row = await loadRun(ctx.principal, id);
      const nowIso = clock.now().toISOString();
      const ended = await db.transaction().execute(async (trx) => {
        if (
          !(await endRun(trx, id, { status: 'cancelled', status_reason: 'cancelled', finished_at: nowIso }))
        )
          return false;
        await endPending(trx, id, 'cancelled', 'cancelled before its turn', nowIso);
        await audit.record(trx, ctx, {
          action: 'update_run.cancelled',
          targetType: 'update_run',
          targetId: id,
          detail: { mode: row.mode, was: row.status },
        });
        return true;
      });
      if (!ended) throw new HubError('conflict', `update run ${id} has already ended (${row.status})`);
      runner.cancelled(id);
      const [run] = await present([
        { ...row, status: 'cancelled', status_reason: 'cancelled', finished_at: nowIso },
      ]);
      if (row.status === 'scheduled') {
        const counts = (run as UpdateRun).counts;
        const ids = (await targetIdsOf(db, [id])).get(id) ?? [];
        events.publish('update_run.completed', {
          asset_ids: ids,
          run_id: id,
          mode: row.mode,
          status: 'cancelled',
          status_reason: 'cancelled',
          total: counts.total,
          ok: counts.ok,
          failed: counts.failed,
          offline: counts.offline,
          skipped: counts.skipped,
          cancelled: counts.cancelled,
        });
      }
      return run as UpdateRun;
    },

    recordReport,

    async recordError(assetId, error) {
      await recordReportError(db, assetId, clock.now().toISOString(), error.slice(0, 1024));
    },

    forgetAsset: (assetId) => forgetAsset(db, assetId),
  };
}
