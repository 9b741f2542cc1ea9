/**
 * Maintenance windows (decision 0078): spans of time, one-off or recurring, on assets and groups, during which
 * alerts on those assets are recorded suppressed and schedules marked `only_in_maintenance_window` may run.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { idPatternFor } from '../ids.js';
import { AssetId, IdParams, Maybe, Name, NullableTimestamp, Timestamp, literals, paged } from './shared.js';

export const maintenanceLimits = {
  /** Windows in the hub, all callers together. */
  windows: 500,
  assetsPerWindow: 1000,
  groupsPerWindow: 50,
  reasonLength: 500,
  cronLength: 120,
  timezoneLength: 64,
  /** A recurring window's occurrence: at least a minute, at most a week. */
  minDurationMinutes: 1,
  maxDurationMinutes: 7 * 24 * 60,
  /** A one-off window lasts at most this long. */
  maxOneOffDays: 31,
  /** Occurrences shown ahead on each window. */
  nextOccurrences: 5,
} as const;

export const maintenanceKinds = ['one_off', 'recurring'] as const;
export type MaintenanceKind = (typeof maintenanceKinds)[number];

/** One span of a window: [starts_at, ends_at), the end excluded. */
export const MaintenanceOccurrence = Type.Object({ starts_at: Timestamp, ends_at: Timestamp });
export type MaintenanceOccurrence = Static<typeof MaintenanceOccurrence>;

export const MaintenanceWindow = Type.Object({
  id: Type.String(),
  name: Type.String(),
  reason: Type.String(),
  kind: literals(maintenanceKinds),
  /** The assets named directly (those the caller may see). */
  asset_ids: Type.Array(Type.String()),
  /** Groups whose members, at any moment, are in the window too. */
  group_ids: Type.Array(Type.String()),
  /** One-off: the span; null for recurring windows. */
  starts_at: NullableTimestamp,
  ends_at: NullableTimestamp,
  /** Recurring: each tick of `cron` in `timezone` opens an occurrence of `duration_minutes`. */
  cron: Maybe(Type.String()),
  duration_minutes: Maybe(Type.Integer()),
  timezone: Type.String(),
  /** The occurrence holding now, or null. */
  current: Maybe(MaintenanceOccurrence),
  /** The next occurrences starting after now (up to `maintenanceLimits.nextOccurrences`). */
  next_occurrences: Type.Array(MaintenanceOccurrence),
  created_by: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type MaintenanceWindow = Static<typeof MaintenanceWindow>;

const Reason = Type.String({ minLength: 1, maxLength: maintenanceLimits.reasonLength });
const WindowAssets = Type.Array(AssetId, { maxItems: maintenanceLimits.assetsPerWindow, uniqueItems: true });
const WindowGroups = Type.Array(Type.String({ pattern: idPatternFor('group') }), {
  maxItems: maintenanceLimits.groupsPerWindow,
  uniqueItems: true,
});
const Cron = Type.String({ minLength: 1, maxLength: maintenanceLimits.cronLength });
const Timezone = Type.String({ minLength: 1, maxLength: maintenanceLimits.timezoneLength });
const DurationMinutes = Type.Integer({
  minimum: maintenanceLimits.minDurationMinutes,
  maximum: maintenanceLimits.maxDurationMinutes,
});

export const MaintenanceWindowCreate = Type.Object(
  {
    name: Name,
    reason: Reason,
    /** At least one asset or group between the two. */
    asset_ids: Type.Optional(WindowAssets),
    group_ids: Type.Optional(WindowGroups),
    /** One-off: both, `ends_at` after `starts_at`. */
    starts_at: Type.Optional(Timestamp),
    ends_at: Type.Optional(Timestamp),
    /** Recurring: both (5 cron fields, or 6 with seconds first). */
    cron: Type.Optional(Cron),
    duration_minutes: Type.Optional(DurationMinutes),
    /** An IANA time zone the cron is read in; UTC by default. */
    timezone: Type.Optional(Timezone),
  },
  { additionalProperties: false },
);
export type MaintenanceWindowCreate = Static<typeof MaintenanceWindowCreate>;

export const MaintenanceWindowUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    reason: Type.Optional(Reason),
    asset_ids: Type.Optional(WindowAssets),
    group_ids: Type.Optional(WindowGroups),
    /** Giving `starts_at`/`ends_at` makes the window one-off; `cron`/`duration_minutes` makes it recurring. */
    starts_at: Type.Optional(Timestamp),
    ends_at: Type.Optional(Timestamp),
    cron: Type.Optional(Cron),
    duration_minutes: Type.Optional(DurationMinutes),
    timezone: Type.Optional(Timezone),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type MaintenanceWindowUpdate = Static<typeof MaintenanceWindowUpdate>;

export const MaintenanceListQuery = Type.Object({
  /** Windows that cover this asset, directly or through one of its groups. */
  asset: Type.Optional(AssetId),
  group: Type.Optional(Type.String({ pattern: idPatternFor('group') })),
  /** `true`: only windows holding now. */
  active: Type.Optional(Type.Boolean()),
});
export type MaintenanceListQuery = Static<typeof MaintenanceListQuery>;

/** An asset in maintenance now, and the windows that hold it. */
export const MaintenanceActiveAsset = Type.Object({
  asset_id: Type.String(),
  window_ids: Type.Array(Type.String()),
  /** When the last of its current occurrences ends. */
  until: Timestamp,
});
export type MaintenanceActiveAsset = Static<typeof MaintenanceActiveAsset>;

export const maintenanceContracts = {
  'maintenance.list': defineRoute({
    name: 'maintenance.list',
    surface: 'v2',
    method: 'GET',
    path: '/maintenance/windows',
    auth: 'scope',
    scope: 'maintenance:read',
    summary: 'Maintenance windows, by name, filtered by asset, group and whether they hold now',
    query: paged(MaintenanceListQuery),
    response: MaintenanceWindow,
    list: true,
  }),
  'maintenance.active': defineRoute({
    name: 'maintenance.active',
    surface: 'v2',
    method: 'GET',
    path: '/maintenance/active',
    auth: 'scope',
    scope: 'maintenance:read',
    summary: 'The assets in a maintenance window now (of those the caller may see)',
    response: Type.Array(MaintenanceActiveAsset),
  }),
  'maintenance.get': defineRoute({
    name: 'maintenance.get',
    surface: 'v2',
    method: 'GET',
    path: '/maintenance/windows/{id}',
    auth: 'scope',
    scope: 'maintenance:read',
    summary: 'One maintenance window, with its current and next occurrences',
    params: IdParams,
    response: MaintenanceWindow,
  }),
  'maintenance.create': defineRoute({
    name: 'maintenance.create',
    surface: 'v2',
    method: 'POST',
    path: '/maintenance/windows',
    auth: 'scope',
    scope: 'maintenance:write',
    summary: 'Create a maintenance window',
    description:
      'One-off (`starts_at` and `ends_at`) or recurring (`cron` in `timezone` and `duration_minutes`), on ' +
      '`asset_ids` and/or `group_ids`, with a `reason`. Alerts on its assets are recorded suppressed while it ' +
      'holds. A key limited to some assets may name only those, and only groups whose members are all among ' +
      'them. Limits in docs/maintenance.md.',
    body: MaintenanceWindowCreate,
    response: MaintenanceWindow,
    successStatus: 201,
  }),
  'maintenance.update': defineRoute({
    name: 'maintenance.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/maintenance/windows/{id}',
    auth: 'scope',
    scope: 'maintenance:write',
    summary: 'Change a maintenance window (checked like a create)',
    params: IdParams,
    body: MaintenanceWindowUpdate,
    response: MaintenanceWindow,
  }),
  'maintenance.delete': defineRoute({
    name: 'maintenance.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/maintenance/windows/{id}',
    auth: 'scope',
    scope: 'maintenance:write',
    summary: 'Remove a maintenance window (a current occurrence ends now)',
    params: IdParams,
    response: MaintenanceWindow,
  }),
} satisfies Record<string, RouteContract>;
