/**
 * Saved actions: a command with its targets or group, stored, then run on demand through the exec service
 * (the one exec path: same checks, audit, fan-out and result budget as `POST /exec`).
 */
import {
  execLimits,
  newId,
  type ActionRun,
  type ExecManyRequest,
  type SavedAction,
  type SavedActionCreate,
  type SavedActionUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database, Executor } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import { toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError } from '../../platform/hub-error.js';
import { hasScope, type ActionContext, type Principal } from '../../access/principal.js';
import type { AssetReads } from '../../agents/asset-reads.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ExecService } from '../exec/exec.service.js';
import type { GroupService } from '../groups/groups.service.js';
import type { ScheduleService } from '../schedules/schedules.service.js';
import {
  deleteSavedAction,
  findSavedAction,
  holdSavedAction,
  insertSavedAction,
  listSavedActions,
  updateSavedAction,
  type SavedActionRow,
} from './actions.repository.js';
import {
  loadedTargets,
  resolveTargetSet,
  storedTargets,
  targetSetOf,
  targetSetVisible,
  type TargetSet,
} from '../../access/target-set.js';

export interface ActionService {
  create(ctx: ActionContext, input: SavedActionCreate): Promise<SavedAction>;
  list(principal: Principal, page: PageRequest): Promise<Page<SavedAction>>;
  update(ctx: ActionContext, id: string, input: SavedActionUpdate): Promise<SavedAction>;
  remove(ctx: ActionContext, id: string): Promise<SavedAction>;
  run(ctx: ActionContext, id: string): Promise<ActionRun>;
  /** A saved action the principal may see, for schedules that run one; 404 otherwise. */
  load(principal: Principal, id: string): Promise<{ action: SavedAction; targets: TargetSet }>;
  /**
   * Inside a transaction that saves a schedule of this action: holds the action until it commits, so it
   * cannot be deleted under the schedule. False when it is gone already.
   */
  holdForSchedule(trx: Executor, id: string): Promise<boolean>;
}

export interface ActionServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  exec: Pick<ExecService, 'runMany'>;
  groups: Pick<GroupService, 'members'>;
  /** Which targets exist: the assets module's reads. */
  assets: Pick<AssetReads, 'summaries'>;
  /** Which schedule runs an action, asked inside the delete's transaction (schedules are built after actions). */
  schedules: () => Pick<ScheduleService, 'usingAction'>;
}

function presentAction(row: SavedActionRow): SavedAction {
  const set = loadedTargets(row);
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    command: row.command,
    timeout: row.timeout_s,
    targets: set.targets,
    group: set.group,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** The exec request a target set and command make. */
export function execRequestOf(set: TargetSet, command: string, timeout: number): ExecManyRequest {
  return set.group !== null
    ? { group: set.group, command, timeout }
    : { targets: set.targets, command, timeout };
}

export function createActionService(deps: ActionServiceDeps): ActionService {
  const { db, clock, audit, events, exec, groups } = deps;

  async function loadVisible(principal: Principal, id: string): Promise<SavedActionRow> {
    const row = await findSavedAction(db, id);
    if (!row || !targetSetVisible(principal, loadedTargets(row))) {
      throw new HubError('not_found', `no saved action ${id}`);
    }
    return row;
  }

  return {
    async create(ctx, input) {
      const set = targetSetOf(input);
      await resolveTargetSet(deps.assets, groups, ctx.principal, set);
      const now = clock.now().toISOString();
      const row: SavedActionRow = {
        id: newId('action'),
        name: input.name,
        description: input.description ?? null,
        command: input.command,
        timeout_s: input.timeout ?? execLimits.defaultTimeout,
        ...storedTargets(set),
        created_at: now,
        updated_at: now,
      };
      await db.transaction().execute(async (trx) => {
        await insertSavedAction(trx, row);
        await audit.record(trx, ctx, {
          action: 'action.created',
          targetType: 'action',
          targetId: row.id,
          detail: {
            name: row.name,
            command: row.command.slice(0, 1024),
            ...(set.group !== null ? { group: set.group } : { targets: set.targets.length }),
          },
        });
      });
      return presentAction(row);
    },

    async list(principal, page) {
      const visible = (await listSavedActions(db)).filter((r) =>
        targetSetVisible(principal, loadedTargets(r)),
      );
      const start = (page.page - 1) * page.perPage;
      return toPage(visible.slice(start, start + page.perPage).map(presentAction), visible.length, page);
    },

    async update(ctx, id, input) {
      const row = await loadVisible(ctx.principal, id);
      const whereChanged = input.targets !== undefined || input.group !== undefined;
      const commandChanged = input.command !== undefined && input.command !== row.command;
      if ((commandChanged || whereChanged) && !hasScope(ctx.principal, 'actions:exec')) {
        // Schedules run the action as it is at each tick: changing what or where is as good as running it.
        throw new HubError('insufficient_scope', 'changing the command or targets needs actions:exec');
      }
      const changes: Partial<SavedActionRow> = { updated_at: clock.now().toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.description !== undefined) changes.description = input.description;
      if (input.command !== undefined) changes.command = input.command;
      if (input.timeout !== undefined) changes.timeout_s = input.timeout;
      if (whereChanged) {
        const set = targetSetOf(input);
        await resolveTargetSet(deps.assets, groups, ctx.principal, set);
        Object.assign(changes, storedTargets(set));
      }
      await db.transaction().execute(async (trx) => {
        await updateSavedAction(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'action.updated',
          targetType: 'action',
          targetId: id,
          detail: {
            name: changes.name ?? row.name,
            fields: Object.keys(input),
            ...(changes.command !== undefined ? { command: changes.command.slice(0, 1024) } : {}),
          },
        });
      });
      return presentAction({ ...row, ...changes });
    },

    async remove(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      // The delete holds the row first, so a schedule being saved with this action either committed before
      // (and is found below, undoing the delete) or finds the action gone (holdForSchedule): never a schedule
      // pointing at nothing.
      await db.transaction().execute(async (trx) => {
        await deleteSavedAction(trx, id);
        const used = await deps.schedules().usingAction(trx, id);
        if (used !== null) throw new HubError('conflict', `saved action ${id} is used by schedule ${used}`);
        await audit.record(trx, ctx, {
          action: 'action.deleted',
          targetType: 'action',
          targetId: id,
          detail: { name: row.name },
        });
      });
      return presentAction(row);
    },

    holdForSchedule: (trx, id) => holdSavedAction(trx, id),

    async run(ctx, id) {
      const row = await loadVisible(ctx.principal, id);
      const set = loadedTargets(row);
      await audit.recordIntent(ctx, [
        { action: 'action.run', targetType: 'action', targetId: id, detail: { name: row.name } },
      ]);
      // The exec service checks the targets again (they may have changed) and audits each one it sends to.
      const outcome = await exec.runMany(ctx, execRequestOf(set, row.command, row.timeout_s));
      events.publish('action.completed', {
        asset_ids: outcome.results.map((r) => r.asset_id),
        action_id: id,
        ...outcome.summary,
      });
      return { action_id: id, ...outcome };
    },

    async load(principal, id) {
      const row = await loadVisible(principal, id);
      return { action: presentAction(row), targets: loadedTargets(row) };
    },
  };
}
