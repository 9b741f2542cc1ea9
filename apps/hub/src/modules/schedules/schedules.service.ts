/**
 * Scheduled tasks: stored with the tick they wait for (`next_run_at`); the scheduler (scheduler.ts) claims and
 * runs them. Created only by a caller that could run the command itself now: its role, scopes and allowed
 * assets are what every run acts with.
 */
import {
  execLimits,
  newId,
  roleRank,
  type Role,
  type Schedule,
  type ScheduleCreate,
  type ScheduleRun,
  type ScheduleUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import { pageWindow, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { hasScope, type ActionContext, type Principal } from '../../access/principal.js';
import type { AssetReads } from '../../agents/asset-reads.js';
import type { AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import type { ActionService } from '../actions/actions.service.js';
import {
  loadedTargets,
  resolveTargetSet,
  storedTargets,
  targetSetOf,
  targetSetVisible,
} from '../../access/target-set.js';
import { checkTimezone, nextTick, parseCron } from './cron.js';
import { parseRunAs, presentRun, presentSchedule, runAsOf, type RunAs } from './schedules.presenter.js';
import {
  deleteSchedule,
  findSchedule,
  findScheduleUsingAction,
  insertSchedule,
  listRuns,
  listSchedules,
  updateSchedule,
  type ScheduleRow,
} from './schedules.repository.js';

export interface ScheduleService {
  create(ctx: ActionContext, input: ScheduleCreate): Promise<Schedule>;
  list(principal: Principal, page: PageRequest): Promise<Page<Schedule>>;
  /** Changes a schedule, or pauses (`enabled: false`) and resumes it. */
  update(ctx: ActionContext, id: string, input: ScheduleUpdate): Promise<Schedule>;
  remove(ctx: ActionContext, id: string): Promise<Schedule>;
  runs(principal: Principal, id: string, page: PageRequest): Promise<Page<ScheduleRun>>;
  /** A schedule that runs the saved action, if any: asked by the actions module inside its delete. */
  usingAction(trx: Executor, actionId: string): Promise<string | null>;
  /** The schedules whose runs act as the user (by name): asked by the users module before a delete. */
  runningAs(trx: Executor, userId: string): Promise<{ id: string; name: string }[]>;
  /**
   * Makes the schedules that run as `fromUserId` run as `to` inside the users module's delete (decision
   * 0087): as a session of `to`, with the lower of both roles and the scopes and assets they had, so a
   * reassignment never widens what a schedule may do. Audited per schedule.
   */
  reassignRunAs(
    trx: Executor,
    ctx: ActionContext,
    fromUserId: string,
    to: { id: string; role: Role },
  ): Promise<{ id: string; name: string }[]>;
}

export interface ScheduleServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  groups: Pick<GroupService, 'members'>;
  /** Which targets exist: the assets module's reads. */
  assets: Pick<AssetReads, 'summaries'>;
  actions: Pick<ActionService, 'load' | 'holdForSchedule'>;
}

export function createScheduleService(deps: ScheduleServiceDeps): ScheduleService {
  const { db, clock, audit, groups, actions } = deps;

  async function loadVisible(principal: Principal, id: string): Promise<ScheduleRow> {
    const row = await findSchedule(db, id);
    if (!row || !targetSetVisible(principal, loadedTargets(row))) {
      throw new HubError('not_found', `no schedule ${id}`);
    }
    return row;
  }

  /** Keeps a schedule's saved action from being deleted before the transaction saving it commits. */
  async function holdAction(trx: Executor, actionId: string | null): Promise<void> {
    if (actionId !== null && !(await actions.holdForSchedule(trx, actionId))) {
      throw new HubError('not_found', `no saved action ${actionId}`);
    }
  }

  /** The command or the saved action, exactly one, and the right to run it. */
  async function whatRuns(ctx: ActionContext, input: Pick<ScheduleCreate, 'command' | 'action_id'>) {
    if (input.command !== undefined && input.action_id !== undefined) {
      throw validationError('command', 'give command or action_id, not both');
    }
    if (input.command !== undefined) {
      if (!hasScope(ctx.principal, 'assets:exec')) {
        throw new HubError(
          'insufficient_scope',
          'a schedule that runs a command needs the assets:exec scope',
        );
      }
      return { command: input.command, actionId: null, fallback: undefined };
    }
    if (input.action_id !== undefined) {
      if (!hasScope(ctx.principal, 'actions:exec')) {
        throw new HubError('insufficient_scope', 'a schedule that runs a saved action needs actions:exec');
      }
      const { targets } = await actions.load(ctx.principal, input.action_id);
      return { command: null, actionId: input.action_id, fallback: targets };
    }
    throw validationError('command', 'give command (a shell command) or action_id (a saved action)');
  }

  return {
    async create(ctx, input) {
      const timezone = checkTimezone(input.timezone ?? 'UTC');
      const cron = parseCron(input.cron, timezone);
      const now = clock.now();
      const next = nextTick(cron, now);
      if (next === null) throw validationError('cron', 'has no future tick');
      const enabled = input.enabled !== false;
      const runs = await whatRuns(ctx, input);
      const set = targetSetOf(input, runs.fallback);
      await resolveTargetSet(deps.assets, groups, ctx.principal, set);
      const row: ScheduleRow = {
        id: newId('schedule'),
        name: input.name,
        cron: input.cron.trim(),
        timezone,
        command: runs.command,
        action_id: runs.actionId,
        timeout_s: input.timeout ?? execLimits.defaultTimeout,
        // A schedule of a saved action without its own targets takes the action's, as they are now.
        ...storedTargets(set),
        run_as: JSON.stringify(runAsOf(ctx.principal)),
        enabled: enabled ? 1 : 0,
        next_run_at: enabled ? next.toISOString() : null,
        last_run_at: null,
        created_at: now.toISOString(),
        only_in_window: input.only_in_maintenance_window === true ? 1 : 0,
      };
      await db.transaction().execute(async (trx) => {
        await holdAction(trx, row.action_id);
        await insertSchedule(trx, row);
        await audit.record(trx, ctx, {
          action: 'schedule.created',
          targetType: 'schedule',
          targetId: row.id,
          detail: {
            name: row.name,
            cron: row.cron,
            timezone,
            ...(row.command !== null ? { command: row.command.slice(0, 1024) } : {}),
            ...(row.action_id !== null ? { action_id: row.action_id } : {}),
            ...(set.group !== null ? { group: set.group } : { targets: set.targets.length }),
            ...(row.only_in_window === 1 ? { only_in_maintenance_window: true } : {}),
          },
        });
      });
      return presentSchedule(row);
    },

    async list(principal, page) {
      const visible = (await listSchedules(db)).filter((r) => targetSetVisible(principal, loadedTargets(r)));
      const start = (page.page - 1) * page.perPage;
      return toPage(visible.slice(start, start + page.perPage).map(presentSchedule), visible.length, page);
    },

    async update(ctx, id, input) {
      const row = await loadVisible(ctx.principal, id);
      const changes: Partial<ScheduleRow> = {};
      if (input.name !== undefined) changes.name = input.name;
      const timezone = checkTimezone(input.timezone ?? row.timezone);
      const cronText = (input.cron ?? row.cron).trim();
      const cron = parseCron(cronText, timezone);
      if (input.timezone !== undefined) changes.timezone = timezone;
      if (input.cron !== undefined) changes.cron = cronText;
      if (input.timeout !== undefined) changes.timeout_s = input.timeout;
      if (input.only_in_maintenance_window !== undefined) {
        changes.only_in_window = input.only_in_maintenance_window ? 1 : 0;
      }

      // What runs, or where, changed: checked like a create, and the schedule acts with the editor's rights.
      const whatChanged =
        (input.command !== undefined && input.command !== row.command) ||
        (input.action_id !== undefined && input.action_id !== row.action_id);
      const whereChanged = input.targets !== undefined || input.group !== undefined;
      if (whatChanged || whereChanged) {
        const runs = await whatRuns(
          ctx,
          whatChanged
            ? { command: input.command, action_id: input.action_id }
            : {
                ...(row.command !== null ? { command: row.command } : {}),
                ...(row.action_id !== null ? { action_id: row.action_id } : {}),
              },
        );
        const set = whereChanged ? targetSetOf(input) : loadedTargets(row);
        await resolveTargetSet(deps.assets, groups, ctx.principal, set);
        Object.assign(changes, storedTargets(set), {
          command: runs.command,
          action_id: runs.actionId,
          run_as: JSON.stringify(runAsOf(ctx.principal)),
        });
      }

      const enabled = input.enabled ?? row.enabled === 1;
      changes.enabled = enabled ? 1 : 0;
      const timingChanged = input.cron !== undefined || input.timezone !== undefined;
      if (!enabled) {
        changes.next_run_at = null;
      } else if (timingChanged || row.enabled === 0) {
        // Resumed or retimed: the next tick after now; ticks while paused are neither run nor missed.
        const next = nextTick(cron, clock.now());
        if (next === null) throw validationError('cron', 'has no future tick');
        changes.next_run_at = next.toISOString();
      }
      const action =
        input.enabled === false && row.enabled === 1
          ? 'schedule.paused'
          : input.enabled === true && row.enabled === 0
            ? 'schedule.resumed'
            : 'schedule.updated';
      await db.transaction().execute(async (trx) => {
        if (changes.action_id !== undefined) await holdAction(trx, changes.action_id);
        await updateSchedule(trx, id, changes);
        await audit.record(trx, ctx, {
          action,
          targetType: 'schedule',
          targetId: id,
          detail: { name: changes.name ?? row.name, fields: Object.keys(input) },
        });
      });
      return presentSchedule({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      await db.transaction().execute(async (trx) => {
        await deleteSchedule(trx, id);
        await audit.record(trx, ctx, {
          action: 'schedule.deleted',
          targetType: 'schedule',
          targetId: id,
          detail: { name: row.name },
        });
      });
      return presentSchedule(row);
    },

    usingAction: (trx, actionId) => findScheduleUsingAction(trx, actionId),

    async runningAs(trx, userId) {
      return (await listSchedules(trx))
        .filter((row) => parseRunAs(row.run_as).userId === userId)
        .map((row) => ({ id: row.id, name: row.name }));
    },

    async reassignRunAs(trx, ctx, fromUserId, to) {
      const moved: { id: string; name: string }[] = [];
      for (const row of await listSchedules(trx)) {
        const runAs = parseRunAs(row.run_as);
        if (runAs.userId !== fromUserId) continue;
        const next: RunAs = {
          authType: 'session',
          userId: to.id,
          keyId: null,
          keyName: null,
          role: roleRank[to.role] < roleRank[runAs.role] ? to.role : runAs.role,
          scopes: runAs.scopes,
          allowedAssets: runAs.allowedAssets,
        };
        await updateSchedule(trx, row.id, { run_as: JSON.stringify(next) });
        await audit.record(trx, ctx, {
          action: 'schedule.updated',
          targetType: 'schedule',
          targetId: row.id,
          detail: { name: row.name, fields: ['run_as'], from_user: fromUserId, to_user: to.id },
        });
        moved.push({ id: row.id, name: row.name });
      }
      return moved;
    },

    async runs(principal, id, page) {
      await loadVisible(principal, id);
      const { rows, total } = await listRuns(db, id, pageWindow(page));
      return toPage(rows.map(presentRun), total, page);
    },
  };
}
