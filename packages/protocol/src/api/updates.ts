/**
 * Package updates (decision 0081): what each machine's package manager says is available, and update runs on
 * assets or groups: a dry run (the manager's own simulation) or an apply, at most `concurrency` targets at a
 * time, stopped after `max_failures`, now, at a time or in the next maintenance window.
 */
import { Type, type Static } from 'typebox';
import {
  AvailableUpdate,
  PackageName,
  PlannedChange,
  packageManagers,
  updateSelections,
  updatesLimits,
} from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { idPatternFor } from '../ids.js';
import {
  AssetId,
  IdParams,
  Maybe,
  NullableTimestamp,
  Timestamp,
  assetParam,
  literals,
  paged,
} from './shared.js';

export const updateRunLimits = {
  /** Explicit targets of one run (a group may be larger, up to `groupTargets`). */
  targets: 1000,
  /** Members of a group one run may target. */
  groupTargets: 10_000,
  /** Targets worked on at once. */
  maxConcurrency: 100,
  defaultConcurrency: 10,
  /** `max_failures`: at most this (absent: no limit). */
  maxFailures: 10_000,
  /** An apply's timeout per target, in minutes. */
  defaultTimeoutMinutes: 60,
  maxTimeoutMinutes: updatesLimits.applyTimeoutMs / 60_000,
  /** A dry run's own timeout per target (the simulation, with a refresh of the lists first). */
  dryRunTimeoutMinutes: 10,
  /** `start: at` no further ahead than this. */
  maxScheduleAheadDays: 90,
  /** The manager's output kept per target in the run record (its end). */
  storedOutputBytes: 64 * 1024,
  /** Planned or done changes kept per target in the run record. */
  storedChanges: 5000,
  /** Runs not scheduled or running the hub keeps (oldest removed first). */
  keptRuns: 2000,
  /** Hours between availability reports asked of each agent, bounds of the setting `updates_check_hours`. */
  minCheckHours: 1,
  maxCheckHours: 168,
  defaultCheckHours: 6,
} as const;

export const updateRunModes = ['dry_run', 'apply'] as const;
export type UpdateRunMode = (typeof updateRunModes)[number];
export const updateRunStarts = ['now', 'at', 'next_window'] as const;
export type UpdateRunStart = (typeof updateRunStarts)[number];

/**
 * `scheduled`: waiting for `scheduled_at`; `running`; then `completed` (every target had its turn, whatever
 * its result), `stopped` (`max_failures` reached, or the window ended: the rest skipped), `cancelled`, or
 * `failed` (the run itself could not go on: the process running it went away, a group gone; `status_reason`).
 */
export const updateRunStatuses = [
  'scheduled',
  'running',
  'completed',
  'stopped',
  'cancelled',
  'failed',
] as const;
export type UpdateRunStatus = (typeof updateRunStatuses)[number];

/**
 * One target of a run: `pending`, `running`, then `ok` (the manager succeeded), `failed` (it exited non-zero,
 * timed out, or the agent could not: no package manager, an error; `error` says which), `offline` (not
 * connected when its turn came: recorded, not waited for), `skipped` (never started: max_failures reached, the
 * window ended) or `cancelled`.
 */
export const updateTargetStatuses = [
  'pending',
  'running',
  'ok',
  'failed',
  'offline',
  'skipped',
  'cancelled',
] as const;
export type UpdateTargetStatus = (typeof updateTargetStatuses)[number];

const Manager = Maybe(literals(packageManagers));

/** One asset's last availability report (the fleet view's row). */
export const AssetUpdateStatus = Type.Object({
  asset_id: Type.String(),
  asset_name: Type.String(),
  /** The agent says it has a package manager the hub can drive (capability `updates`). */
  supported: Type.Boolean(),
  manager: Manager,
  /** Available upgrades, of them marked security by the manager; null before the first report. */
  updates: Maybe(Type.Integer({ minimum: 0 })),
  security_updates: Maybe(Type.Integer({ minimum: 0 })),
  /** The listing was longer than `updatesLimits.packages`: the counts are of what was listed. */
  truncated: Type.Boolean(),
  reboot_required: Maybe(Type.Boolean()),
  /** When the manager last changed packages (its log), as the agent reports it. */
  last_patched_at: NullableTimestamp,
  /** When the last report (or the last attempt, see `error`) came. */
  checked_at: NullableTimestamp,
  /** Why the last attempt gave no report (the counts are then of the one before). */
  error: Maybe(Type.String()),
});
export type AssetUpdateStatus = Static<typeof AssetUpdateStatus>;

/** One asset's report with the packages themselves. */
export const AssetUpdates = Type.Object({
  ...AssetUpdateStatus.properties,
  packages: Type.Array(AvailableUpdate),
});
export type AssetUpdates = Static<typeof AssetUpdates>;

export const UpdatesFleetQuery = Type.Object({
  /** `true`: only assets with at least one available update; `false`: only those with none. */
  needs_updates: Type.Optional(Type.Boolean()),
  /** `true`: only assets with at least one security update. */
  security: Type.Optional(Type.Boolean()),
  reboot_required: Type.Optional(Type.Boolean()),
  group: Type.Optional(Type.String({ pattern: idPatternFor('group') })),
  /** `true`: only assets whose agent can report (capability `updates`). */
  supported: Type.Optional(Type.Boolean()),
});
export type UpdatesFleetQuery = Static<typeof UpdatesFleetQuery>;

export const UpdateRunCounts = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  pending: Type.Integer({ minimum: 0 }),
  running: Type.Integer({ minimum: 0 }),
  ok: Type.Integer({ minimum: 0 }),
  failed: Type.Integer({ minimum: 0 }),
  offline: Type.Integer({ minimum: 0 }),
  skipped: Type.Integer({ minimum: 0 }),
  cancelled: Type.Integer({ minimum: 0 }),
});
export type UpdateRunCounts = Static<typeof UpdateRunCounts>;

export const UpdateRunCreate = Type.Object(
  {
    /** One of `targets` and `group`. */
    targets: Type.Optional(
      Type.Array(AssetId, { minItems: 1, maxItems: updateRunLimits.targets, uniqueItems: true }),
    ),
    group: Type.Optional(Type.String({ pattern: idPatternFor('group') })),
    mode: literals(updateRunModes),
    selection: literals(updateSelections),
    /** With selection `named` (then at least one); absent otherwise. */
    packages: Type.Optional(Type.Array(PackageName, { maxItems: updatesLimits.names, uniqueItems: true })),
    /** Apply only: reboot a target after a successful apply when it then says it needs one (false by default). */
    reboot_if_required: Type.Optional(Type.Boolean()),
    /** Refresh the manager's package lists first (true by default). */
    refresh: Type.Optional(Type.Boolean()),
    concurrency: Type.Optional(Type.Integer({ minimum: 1, maximum: updateRunLimits.maxConcurrency })),
    /** Start no new target once this many have failed (offline ones do not count); absent: no limit. */
    max_failures: Type.Optional(Type.Integer({ minimum: 1, maximum: updateRunLimits.maxFailures })),
    /** Apply only: how long the manager may run on one target. */
    timeout_minutes: Type.Optional(Type.Integer({ minimum: 1, maximum: updateRunLimits.maxTimeoutMinutes })),
    /** `now` by default; `at` needs `scheduled_at`; `next_window`: the next maintenance window of all targets. */
    start: Type.Optional(literals(updateRunStarts)),
    scheduled_at: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);
export type UpdateRunCreate = Static<typeof UpdateRunCreate>;

export const UpdateRun = Type.Object({
  id: Type.String(),
  mode: literals(updateRunModes),
  selection: literals(updateSelections),
  packages: Type.Array(Type.String()),
  reboot_if_required: Type.Boolean(),
  refresh: Type.Boolean(),
  concurrency: Type.Integer(),
  max_failures: Maybe(Type.Integer()),
  timeout_minutes: Type.Integer(),
  /** As asked: the explicit targets (those the caller may see), or null with a group. */
  targets: Maybe(Type.Array(Type.String())),
  group: Maybe(Type.String()),
  start: literals(updateRunStarts),
  /** When it starts (or started), for `at` and `next_window`; null for `now`. */
  scheduled_at: NullableTimestamp,
  /** The maintenance window it is bound to, and when that occurrence ends (no target starts after it). */
  window_id: Maybe(Type.String()),
  window_ends_at: NullableTimestamp,
  status: literals(updateRunStatuses),
  /** Why it stopped or failed; null otherwise. */
  status_reason: Maybe(Type.String()),
  counts: UpdateRunCounts,
  created_by: Type.String(),
  created_at: Timestamp,
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
});
export type UpdateRun = Static<typeof UpdateRun>;

/** One target's result, without the manager's output and the changes themselves (see the result route). */
export const UpdateTargetSummary = Type.Object({
  asset_id: Type.String(),
  asset_name: Type.String(),
  status: literals(updateTargetStatuses),
  manager: Manager,
  /** How many packages the manager planned (dry run) or changed (apply). */
  changes: Type.Integer({ minimum: 0 }),
  exit_code: Maybe(Type.Integer()),
  timed_out: Type.Boolean(),
  /** After an apply: the machine says it needs a reboot; null when not known. */
  reboot_required: Maybe(Type.Boolean()),
  /** A reboot was asked for and accepted. */
  rebooting: Type.Boolean(),
  error: Maybe(Type.String()),
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  duration_ms: Maybe(Type.Integer({ minimum: 0 })),
});
export type UpdateTargetSummary = Static<typeof UpdateTargetSummary>;

export const UpdateRunDetail = Type.Object({
  ...UpdateRun.properties,
  results: Type.Array(UpdateTargetSummary),
});
export type UpdateRunDetail = Static<typeof UpdateRunDetail>;

/** One target's whole result: the planned or done changes and the manager's output (its end). */
export const UpdateTargetResult = Type.Object({
  ...UpdateTargetSummary.properties,
  run_id: Type.String(),
  mode: literals(updateRunModes),
  change_list: Type.Array(PlannedChange),
  /** More changes than `updateRunLimits.storedChanges`, or the agent's own list was cut. */
  changes_truncated: Type.Boolean(),
  output: Type.String(),
  /** Cut by the agent or on storing (`updateRunLimits.storedOutputBytes`): the end is kept. */
  output_truncated: Type.Boolean(),
});
export type UpdateTargetResult = Static<typeof UpdateTargetResult>;

export const UpdateRunsQuery = Type.Object({
  status: Type.Optional(literals(updateRunStatuses)),
  mode: Type.Optional(literals(updateRunModes)),
  /** Runs that target this asset. */
  asset: Type.Optional(AssetId),
});
export type UpdateRunsQuery = Static<typeof UpdateRunsQuery>;

const RunResultParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  asset_id: Type.String({ minLength: 1, maxLength: 200 }),
});

export const updatesContracts = {
  'updates.fleet': defineRoute({
    name: 'updates.fleet',
    surface: 'v2',
    method: 'GET',
    path: '/updates',
    auth: 'scope',
    scope: 'updates:read',
    summary: 'Which machines need updates: counts, security updates, reboot, last patched, per asset',
    description:
      'One row per asset the caller may see, most security updates first, then most updates, then name. ' +
      'Reports come from the agents every `updates_check_hours` (setting) and on refresh.',
    query: paged(UpdatesFleetQuery),
    response: AssetUpdateStatus,
    list: true,
  }),
  'updates.asset': defineRoute({
    name: 'updates.asset',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/updates',
    auth: 'scope',
    scope: 'updates:read',
    summary: "One asset's available updates, as last reported",
    asset: assetParam,
    params: IdParams,
    response: AssetUpdates,
  }),
  'updates.refresh': defineRoute({
    name: 'updates.refresh',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/updates/refresh',
    auth: 'scope',
    scope: 'updates:run',
    summary: "Ask the asset's agent for its available updates now (refreshing the manager's lists)",
    description:
      'Answers the new report. An offline agent is a 409, an agent without package manager support a 409 ' +
      'that says so, ' +
      "an agent's failure a 502 that says why. The hub's own host needs the admin role.",
    asset: assetParam,
    params: IdParams,
    response: AssetUpdates,
  }),
  'updates.runs.create': defineRoute({
    name: 'updates.runs.create',
    surface: 'v2',
    method: 'POST',
    path: '/update-runs',
    auth: 'scope',
    scope: 'updates:run',
    summary: 'Start or schedule an update run (dry run or apply) on targets or a group',
    description:
      "`mode` `dry_run` asks each target for its manager's simulation; `apply` installs. `selection` `all`, " +
      '`security` or `named` (with `packages`). At most `concurrency` targets at a time (default 10); no new ' +
      'target starts once `max_failures` have failed (the rest `skipped`). `start`: `now`, `at` ' +
      '(`scheduled_at`), or `next_window` (the next maintenance window holding every target; a 409 when ' +
      "there is none). Each target's result is stored and published as `update_run.target_completed` as it " +
      "comes. A key limited to some assets may target only those (a group: all its members). The hub's own " +
      'host needs the admin role. Limits in docs/updates.md.',
    body: UpdateRunCreate,
    response: UpdateRun,
    successStatus: 201,
  }),
  'updates.runs.list': defineRoute({
    name: 'updates.runs.list',
    surface: 'v2',
    method: 'GET',
    path: '/update-runs',
    auth: 'scope',
    scope: 'updates:read',
    summary: 'Update runs, newest first: scheduled, running and past',
    query: paged(UpdateRunsQuery),
    response: UpdateRun,
    list: true,
  }),
  'updates.runs.get': defineRoute({
    name: 'updates.runs.get',
    surface: 'v2',
    method: 'GET',
    path: '/update-runs/{id}',
    auth: 'scope',
    scope: 'updates:read',
    summary: "One update run with each target's status, change count, exit code and error",
    params: IdParams,
    response: UpdateRunDetail,
  }),
  'updates.runs.result': defineRoute({
    name: 'updates.runs.result',
    surface: 'v2',
    method: 'GET',
    path: '/update-runs/{id}/results/{asset_id}',
    auth: 'scope',
    scope: 'updates:read',
    summary: "One target's result in a run: the planned or done changes and the manager's output",
    params: RunResultParams,
    response: UpdateTargetResult,
  }),
  'updates.runs.cancel': defineRoute({
    name: 'updates.runs.cancel',
    surface: 'v2',
    method: 'POST',
    path: '/update-runs/{id}/cancel',
    auth: 'scope',
    scope: 'updates:run',
    summary: 'Cancel a scheduled or running update run',
    description:
      'No new target starts; targets not yet started are `cancelled`. A target already running finishes ' +
      '(the package manager is not interrupted mid-transaction) and its result is kept. A finished run is a 409.',
    params: IdParams,
    response: UpdateRun,
  }),
} satisfies Record<string, RouteContract>;
