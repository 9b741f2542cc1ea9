/**
 * Maintenance windows (decision 0078): stored with their targets (assets and groups; a group's members are
 * read when the window is judged, so they follow the group), judged against the clock by window-time.ts.
 * A caller sees a window when it may see one of its assets; it may change or remove one only when it may see
 * every asset the window holds, and create one only on assets it may see and groups whose members are all
 * among them.
 */
import {
  maintenanceLimits,
  newId,
  type MaintenanceActiveAsset,
  type MaintenanceListQuery,
  type MaintenanceWindow,
  type MaintenanceWindowCreate,
  type MaintenanceWindowUpdate,
} from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { readStringList, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { HubError, validationError } from '../../platform/hub-error.js';
import { actorOf, canSeeAsset, type ActionContext, type Principal } from '../../access/principal.js';
import type { TargetSet } from '../../access/target-set.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { GroupService } from '../groups/groups.service.js';
import { presentWindow, timingOf } from './maintenance.presenter.js';
import {
  countWindows,
  deleteWindow,
  findWindow,
  insertWindow,
  listWindows,
  updateWindow,
  type MaintenanceWindowRow,
} from './maintenance.repository.js';
import {
  checkTiming,
  currentOccurrence,
  nextOccurrences,
  type Occurrence,
  type TimingInput,
} from './window-time.js';

/** A window with the assets it holds now (its own and its groups' members) and its occurrence holding now. */
interface ResolvedWindow {
  row: MaintenanceWindowRow;
  assets: ReadonlySet<string>;
  current: Occurrence | null;
}

export interface MaintenanceService {
  list(
    principal: Principal,
    query: MaintenanceListQuery,
    page: PageRequest,
  ): Promise<Page<MaintenanceWindow>>;
  get(principal: Principal, id: string): Promise<MaintenanceWindow>;
  create(ctx: ActionContext, input: MaintenanceWindowCreate): Promise<MaintenanceWindow>;
  update(ctx: ActionContext, id: string, input: MaintenanceWindowUpdate): Promise<MaintenanceWindow>;
  remove(ctx: ActionContext, id: string): Promise<MaintenanceWindow>;
  active(principal: Principal): Promise<MaintenanceActiveAsset[]>;

  // What other modules ask.
  /** Every window, resolved at `now`. */
  resolved(now: Date): Promise<ResolvedWindow[]>;
  /** The assets in a window at `now`, each with the id of a window holding it. */
  holding(now: Date): Promise<Map<string, string>>;
  /** The assets of a target set that are not in a window at `now` (a group's members read now). */
  outside(set: TargetSet, now: Date): Promise<string[]>;
  /**
   * The earliest occurrence, holding `now` or starting after it, of one window that holds every one of
   * `assetIds` (groups read now), or null when no window holds them all (update runs bound to a window).
   */
  nextCovering(assetIds: readonly string[], now: Date): Promise<CoveringOccurrence | null>;
}

/** An occurrence of a window that holds a whole target set. */
export interface CoveringOccurrence {
  windowId: string;
  start: Date;
  end: Date;
}

export interface MaintenanceServiceDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  assets: Pick<AssetService, 'missingIds'>;
  groups: Pick<GroupService, 'members' | 'membersOf'>;
  /** Called after a change, so the announcer judges the windows now rather than at its next poll. */
  changed?: () => void;
}

function isVisible(principal: Principal, window: ResolvedWindow): boolean {
  if (principal.allowedAssets === null) return true;
  for (const id of window.assets) if (canSeeAsset(principal, id)) return true;
  return false;
}

export function createMaintenanceService(deps: MaintenanceServiceDeps): MaintenanceService {
  const { db, clock, audit, assets, groups } = deps;

  async function resolveRows(rows: readonly MaintenanceWindowRow[], now: Date): Promise<ResolvedWindow[]> {
    const groupIds = [...new Set(rows.flatMap((r) => readStringList(r.group_ids)))];
    const members = await groups.membersOf(groupIds);
    return rows.map((row) => {
      const held = new Set(readStringList(row.asset_ids));
      for (const groupId of readStringList(row.group_ids)) {
        for (const id of members.get(groupId) ?? []) held.add(id);
      }
      return { row, assets: held, current: currentOccurrence(timingOf(row), now) };
    });
  }

  async function loadVisible(principal: Principal, id: string): Promise<ResolvedWindow> {
    const row = await findWindow(db, id);
    const [window] = row ? await resolveRows([row], clock.now()) : [];
    if (!window || !isVisible(principal, window)) {
      throw new HubError('not_found', `no maintenance window ${id}`);
    }
    return window;
  }

  /** A restricted key changes a window only when it may see every asset the window holds. */
  function checkWhollyVisible(principal: Principal, window: ResolvedWindow): void {
    for (const assetId of window.assets) {
      if (!canSeeAsset(principal, assetId)) {
        throw new HubError(
          'forbidden',
          `maintenance window ${window.row.id} holds assets outside this key's allowed assets`,
        );
      }
    }
  }

  /** Assets the caller may see and that exist; groups it may see whose members are all its own. */
  async function checkTargets(
    principal: Principal,
    assetIds: readonly string[],
    groupIds: readonly string[],
  ): Promise<void> {
    if (assetIds.length === 0 && groupIds.length === 0) {
      throw validationError('asset_ids', 'name at least one asset (asset_ids) or group (group_ids)');
    }
    const hidden = assetIds.filter((id) => !canSeeAsset(principal, id));
    const missing = await assets.missingIds(assetIds.filter((id) => canSeeAsset(principal, id)));
    const unknown = [...hidden, ...missing];
    if (unknown.length > 0) {
      const more = unknown.length > 20 ? ` and ${unknown.length - 20} more` : '';
      throw validationError('asset_ids', `unknown asset ids: ${unknown.slice(0, 20).join(', ')}${more}`);
    }
    for (const groupId of groupIds) {
      const members = await groups.members(principal, groupId);
      if (members.some((id) => !canSeeAsset(principal, id))) {
        throw new HubError('forbidden', `group ${groupId} has members outside this key's allowed assets`);
      }
    }
  }

  function checked(input: TimingInput, now: Date) {
    const result = checkTiming(input, now);
    if (!result.ok) throw validationError(result.field, result.message);
    return result.timing;
  }

  /** The timing an update asks for, merged over the stored one; null when it changes none of it. */
  function timingInputOf(row: MaintenanceWindowRow, input: MaintenanceWindowUpdate): TimingInput | null {
    const toOneOff = input.starts_at !== undefined || input.ends_at !== undefined;
    const toRecurring = input.cron !== undefined || input.duration_minutes !== undefined;
    if (!toOneOff && !toRecurring && input.timezone === undefined) return null;
    if (toOneOff && toRecurring) {
      throw validationError('cron', 'give starts_at and ends_at, or cron and duration_minutes');
    }
    const oneOff = toOneOff || (!toRecurring && row.kind === 'one_off');
    const timezone = input.timezone ?? row.timezone;
    if (oneOff) {
      return {
        startsAt: input.starts_at ?? (row.kind === 'one_off' ? (row.starts_at ?? undefined) : undefined),
        endsAt: input.ends_at ?? (row.kind === 'one_off' ? (row.ends_at ?? undefined) : undefined),
        timezone,
      };
    }
    return {
      cron: input.cron ?? (row.kind === 'recurring' ? (row.cron ?? undefined) : undefined),
      durationMinutes:
        input.duration_minutes ??
        (row.kind === 'recurring' ? (row.duration_minutes ?? undefined) : undefined),
      timezone,
    };
  }

  async function resolved(now: Date): Promise<ResolvedWindow[]> {
    return resolveRows(await listWindows(db), now);
  }

  async function holding(now: Date): Promise<Map<string, string>> {
    const held = new Map<string, string>();
    for (const window of await resolved(now)) {
      if (window.current === null) continue;
      for (const id of window.assets) if (!held.has(id)) held.set(id, window.row.id);
    }
    return held;
  }

  return {
    async list(principal, query, page) {
      const now = clock.now();
      const windows = (await resolved(now)).filter(
        (w) =>
          isVisible(principal, w) &&
          (query.asset === undefined || (w.assets.has(query.asset) && canSeeAsset(principal, query.asset))) &&
          (query.group === undefined || readStringList(w.row.group_ids).includes(query.group)) &&
          (query.active !== true || w.current !== null),
      );
      const start = (page.page - 1) * page.perPage;
      return toPage(
        windows.slice(start, start + page.perPage).map((w) => presentWindow(w.row, principal, now)),
        windows.length,
        page,
      );
    },

    async get(principal, id) {
      const window = await loadVisible(principal, id);
      return presentWindow(window.row, principal, clock.now());
    },

    async create(ctx, input) {
      const now = clock.now();
      const timing = checked(
        {
          startsAt: input.starts_at,
          endsAt: input.ends_at,
          cron: input.cron,
          durationMinutes: input.duration_minutes,
          timezone: input.timezone,
        },
        now,
      );
      const assetIds = input.asset_ids ?? [];
      const groupIds = input.group_ids ?? [];
      await checkTargets(ctx.principal, assetIds, groupIds);
      const row: MaintenanceWindowRow = {
        id: newId('maintenanceWindow'),
        name: input.name,
        reason: input.reason,
        kind: timing.kind,
        asset_ids: JSON.stringify(assetIds),
        group_ids: JSON.stringify(groupIds),
        starts_at: timing.startsAt,
        ends_at: timing.endsAt,
        cron: timing.cron,
        duration_minutes: timing.durationMinutes,
        timezone: timing.timezone,
        created_by: actorOf(ctx.principal).actorId ?? 'unknown',
        created_at: now.toISOString(),
        updated_at: now.toISOString(),
      };
      await db.transaction().execute(async (trx) => {
        // Counted inside the transaction that inserts, so two creates at the limit cannot both pass on SQLite;
        // on PostgreSQL the limit may be passed by a handful under a burst, which it exists to bound anyway.
        if ((await countWindows(trx)) >= maintenanceLimits.windows) {
          throw new HubError('conflict', `at most ${maintenanceLimits.windows} maintenance windows`);
        }
        await insertWindow(trx, row);
        await audit.record(trx, ctx, {
          action: 'maintenance.created',
          targetType: 'maintenance_window',
          targetId: row.id,
          detail: {
            name: row.name,
            reason: row.reason,
            kind: row.kind,
            assets: assetIds.length,
            groups: groupIds,
            ...(row.cron !== null ? { cron: row.cron, duration_minutes: row.duration_minutes } : {}),
            ...(row.starts_at !== null ? { starts_at: row.starts_at, ends_at: row.ends_at } : {}),
            timezone: row.timezone,
          },
        });
      });
      deps.changed?.();
      return presentWindow(row, ctx.principal, now);
    },

    async update(ctx, id, input) {
      const window = await loadVisible(ctx.principal, id);
      checkWhollyVisible(ctx.principal, window);
      const { row } = window;
      const now = clock.now();
      const changes: Partial<MaintenanceWindowRow> = { updated_at: now.toISOString() };
      if (input.name !== undefined) changes.name = input.name;
      if (input.reason !== undefined) changes.reason = input.reason;
      const timingInput = timingInputOf(row, input);
      if (timingInput !== null) {
        const timing = checked(timingInput, now);
        Object.assign(changes, {
          kind: timing.kind,
          starts_at: timing.startsAt,
          ends_at: timing.endsAt,
          cron: timing.cron,
          duration_minutes: timing.durationMinutes,
          timezone: timing.timezone,
        });
      }
      if (input.asset_ids !== undefined || input.group_ids !== undefined) {
        const assetIds = input.asset_ids ?? readStringList(row.asset_ids);
        const groupIds = input.group_ids ?? readStringList(row.group_ids);
        await checkTargets(ctx.principal, assetIds, groupIds);
        changes.asset_ids = JSON.stringify(assetIds);
        changes.group_ids = JSON.stringify(groupIds);
      }
      await db.transaction().execute(async (trx) => {
        await updateWindow(trx, id, changes);
        await audit.record(trx, ctx, {
          action: 'maintenance.updated',
          targetType: 'maintenance_window',
          targetId: id,
          detail: { name: changes.name ?? row.name, fields: Object.keys(input) },
        });
      });
      deps.changed?.();
      return presentWindow({ ...row, ...changes }, ctx.principal, now);
    },

    async remove(ctx, id) {
      const window = await loadVisible(ctx.principal, id);
      checkWhollyVisible(ctx.principal, window);
      await db.transaction().execute(async (trx) => {
        await deleteWindow(trx, id);
        await audit.record(trx, ctx, {
          action: 'maintenance.deleted',
          targetType: 'maintenance_window',
          targetId: id,
          detail: { name: window.row.name },
        });
      });
      deps.changed?.();
      return presentWindow(window.row, ctx.principal, clock.now());
    },

    async active(principal) {
      const byAsset = new Map<string, { windows: string[]; until: number }>();
      for (const window of await resolved(clock.now())) {
        if (window.current === null) continue;
        for (const assetId of window.assets) {
          if (!canSeeAsset(principal, assetId)) continue;
          const entry = byAsset.get(assetId) ?? { windows: [], until: 0 };
          entry.windows.push(window.row.id);
          entry.until = Math.max(entry.until, window.current.end.getTime());
          byAsset.set(assetId, entry);
        }
      }
      return [...byAsset.entries()]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([assetId, entry]) => ({
          asset_id: assetId,
          window_ids: entry.windows,
          until: new Date(entry.until).toISOString(),
        }));
    },

    resolved,
    holding,

    async outside(set, now) {
      const ids =
        set.group !== null ? ((await groups.membersOf([set.group])).get(set.group) ?? []) : set.targets;
      const held = await holding(now);
      return ids.filter((id) => !held.has(id));
    },

    async nextCovering(assetIds, now) {
      let best: CoveringOccurrence | null = null;
      for (const window of await resolved(now)) {
        if (!assetIds.every((id) => window.assets.has(id))) continue;
        const occurrence = window.current ?? nextOccurrences(timingOf(window.row), now, 1)[0] ?? null;
        if (occurrence === null) continue;
        if (best === null || occurrence.start.getTime() < best.start.getTime()) {
          best = { windowId: window.row.id, start: occurrence.start, end: occurrence.end };
        }
      }
      return best;
    },
  };
}
