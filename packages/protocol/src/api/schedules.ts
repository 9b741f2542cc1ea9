/** Schedules: a command or a saved action run on targets or a group at the ticks of a cron expression. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { idPatternFor } from '../ids.js';
import { ExecResult, ExecSummary } from './exec.js';
import { Command, CommandTimeout, GroupRef, Targets } from './actions.js';
import { IdParams, Maybe, Name, NullableTimestamp, Timestamp } from './shared.js';

export const scheduleLimits = {
  cronLength: 120,
  timezoneLength: 64,
  /** stdout and stderr kept per target in a run record (each; the rest is cut and marked truncated). */
  storedStreamBytes: 4096,
  /** A tick found this late (the hub was down or busy) still runs; later than this it is reported missed. */
  lateGraceSeconds: 60,
} as const;

export const Schedule = Type.Object({
  id: Type.String(),
  name: Type.String(),
  cron: Type.String(),
  timezone: Type.String(),
  command: Maybe(Type.String()),
  action_id: Maybe(Type.String()),
  timeout: Type.Integer(),
  targets: Maybe(Type.Array(Type.String())),
  group: Maybe(Type.String()),
  /** False while paused: no tick runs, and none is reported missed; `next_run_at` is null. */
  enabled: Type.Boolean(),
  /** True: a tick runs only while every target is in a maintenance window; otherwise it is recorded skipped. */
  only_in_maintenance_window: Type.Boolean(),
  next_run_at: NullableTimestamp,
  last_run_at: NullableTimestamp,
  created_at: Timestamp,
});
export type Schedule = Static<typeof Schedule>;

export const ScheduleCreate = Type.Object(
  {
    name: Name,
    /** Five fields, or six with seconds first (croner syntax). */
    cron: Type.String({ minLength: 1, maxLength: scheduleLimits.cronLength }),
    /** An IANA time zone; UTC by default. */
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: scheduleLimits.timezoneLength })),
    command: Type.Optional(Command),
    action_id: Type.Optional(Type.String({ pattern: idPatternFor('action') })),
    timeout: Type.Optional(CommandTimeout),
    targets: Type.Optional(Targets),
    group: Type.Optional(GroupRef),
    /** False creates it paused. */
    enabled: Type.Optional(Type.Boolean()),
    /** Run a tick only while every target is in a maintenance window (false by default). */
    only_in_maintenance_window: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ScheduleCreate = Static<typeof ScheduleCreate>;

export const ScheduleUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    cron: Type.Optional(Type.String({ minLength: 1, maxLength: scheduleLimits.cronLength })),
    timezone: Type.Optional(Type.String({ minLength: 1, maxLength: scheduleLimits.timezoneLength })),
    /** Replaces what runs: `command` clears `action_id`, and the other way round. */
    command: Type.Optional(Command),
    action_id: Type.Optional(Type.String({ pattern: idPatternFor('action') })),
    timeout: Type.Optional(CommandTimeout),
    /** Replaces the targets: `targets` clears `group`, and the other way round. */
    targets: Type.Optional(Targets),
    group: Type.Optional(GroupRef),
    /** False pauses, true resumes from the next tick after now. */
    enabled: Type.Optional(Type.Boolean()),
    only_in_maintenance_window: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ScheduleUpdate = Static<typeof ScheduleUpdate>;

export const scheduleRunStatuses = [
  'running',
  'completed',
  'missed',
  'interrupted',
  'failed',
  'refused',
  /** A tick outside a maintenance window of a schedule that runs only inside one. */
  'skipped',
] as const;
export type ScheduleRunStatus = (typeof scheduleRunStatuses)[number];

export const ScheduleRun = Type.Object({
  id: Type.String(),
  schedule_id: Type.String(),
  /** The tick this run belongs to (for `missed`: the first tick missed). */
  tick_at: Timestamp,
  status: Type.Enum<[...typeof scheduleRunStatuses]>([...scheduleRunStatuses]),
  /** Ticks this record stands for: 1, or how many were missed while the hub was down. */
  ticks: Type.Integer({ minimum: 1 }),
  started_at: NullableTimestamp,
  finished_at: NullableTimestamp,
  summary: Maybe(ExecSummary),
  results: Type.Array(ExecResult),
  error: Maybe(Type.String()),
});
export type ScheduleRun = Static<typeof ScheduleRun>;

export const schedulesContracts = {
  'schedules.create': defineRoute({
    name: 'schedules.create',
    surface: 'v2',
    method: 'POST',
    path: '/schedules',
    auth: 'scope',
    scope: 'schedules:write',
    summary: 'Create a scheduled task',
    description:
      '`cron` (5 fields, or 6 with seconds first) in `timezone` (IANA, default UTC); `command` or ' +
      '`action_id` (one of the two); `targets` or `group` (one of the two; with `action_id`, the ' +
      "action's own when absent). Each tick runs at most once, also across restarts; ticks missed while " +
      'the hub was down are recorded as one `missed` run, not replayed.',
    body: ScheduleCreate,
    response: Schedule,
    successStatus: 201,
  }),
  'schedules.list': defineRoute({
    name: 'schedules.list',
    surface: 'v2',
    method: 'GET',
    path: '/schedules',
    auth: 'scope',
    scope: 'schedules:read',
    summary: 'List scheduled tasks',
    query: PaginationQuery,
    response: Schedule,
    list: true,
  }),
  'schedules.update': defineRoute({
    name: 'schedules.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/schedules/{id}',
    auth: 'scope',
    scope: 'schedules:write',
    summary: 'Change a scheduled task, or pause and resume it (documented extra)',
    description:
      'Any field of the create, and `enabled`. A paused schedule runs no tick and reports none missed; ' +
      'resumed, it waits for the next tick after now. A change of what runs or where is checked like a ' +
      "create, and the schedule then acts with the editor's rights.",
    params: IdParams,
    body: ScheduleUpdate,
    response: Schedule,
  }),
  'schedules.delete': defineRoute({
    name: 'schedules.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/schedules/{id}',
    auth: 'scope',
    scope: 'schedules:write',
    summary: 'Remove a scheduled task (its run history goes with it)',
    params: IdParams,
    response: Schedule,
  }),
  'schedules.runs': defineRoute({
    name: 'schedules.runs',
    surface: 'v2',
    method: 'GET',
    path: '/schedules/{id}/runs',
    auth: 'scope',
    scope: 'schedules:read',
    summary: 'Run history of a scheduled task, newest first (documented extra)',
    params: IdParams,
    query: PaginationQuery,
    response: ScheduleRun,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
