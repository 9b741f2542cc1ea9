/** Saved actions: a named command with its targets or group, run on demand through the one exec service. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { idPatternFor } from '../ids.js';
import { ExecResult, ExecSummary, execLimits } from './exec.js';
import { AssetId, Description, IdParams, Maybe, Name, Timestamp } from './shared.js';

export const automationLimits = {
  /** Explicit targets of one saved action or schedule (a group can be larger). */
  targets: 1000,
} as const;

export const Targets = Type.Array(AssetId, { maxItems: automationLimits.targets, uniqueItems: true });
export const GroupRef = Type.String({ pattern: idPatternFor('group') });
export const Command = Type.String({ minLength: 1, maxLength: execLimits.commandBytes });
export const CommandTimeout = Type.Integer({ minimum: 1, maximum: execLimits.maxTimeout });

export const SavedAction = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Maybe(Type.String()),
  command: Type.String(),
  timeout: Type.Integer(),
  /** Explicit targets; null when the action runs on a group. */
  targets: Maybe(Type.Array(Type.String())),
  group: Maybe(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type SavedAction = Static<typeof SavedAction>;

export const SavedActionCreate = Type.Object(
  {
    name: Name,
    description: Type.Optional(Maybe(Description)),
    command: Command,
    timeout: Type.Optional(CommandTimeout),
    targets: Type.Optional(Targets),
    group: Type.Optional(GroupRef),
  },
  { additionalProperties: false },
);
export type SavedActionCreate = Static<typeof SavedActionCreate>;

export const SavedActionUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Maybe(Description)),
    command: Type.Optional(Command),
    timeout: Type.Optional(CommandTimeout),
    /** Replaces the targets: `targets` clears `group`, and the other way round. */
    targets: Type.Optional(Targets),
    group: Type.Optional(GroupRef),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type SavedActionUpdate = Static<typeof SavedActionUpdate>;

export const ActionRun = Type.Object({
  action_id: Type.String(),
  results: Type.Array(ExecResult),
  summary: ExecSummary,
});
export type ActionRun = Static<typeof ActionRun>;

export const actionsContracts = {
  'actions.create': defineRoute({
    name: 'actions.create',
    surface: 'v2',
    method: 'POST',
    path: '/actions',
    auth: 'scope',
    scope: 'actions:write',
    summary: 'Create a saved action',
    description:
      'A command with `targets` (asset ids) or a `group`, one of the two. Every target must be visible to ' +
      'the caller (404 otherwise, as for exec).',
    body: SavedActionCreate,
    response: SavedAction,
    successStatus: 201,
  }),
  'actions.list': defineRoute({
    name: 'actions.list',
    surface: 'v2',
    method: 'GET',
    path: '/actions',
    auth: 'scope',
    scope: 'actions:read',
    summary: 'List saved actions',
    query: PaginationQuery,
    response: SavedAction,
    list: true,
  }),
  'actions.update': defineRoute({
    name: 'actions.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/actions/{id}',
    auth: 'scope',
    scope: 'actions:write',
    summary: 'Change a saved action (documented extra)',
    description:
      'Any field of the create. New targets are checked like a create. Changing the command or the targets ' +
      'also needs `actions:exec`: schedules that run the action run what it becomes.',
    params: IdParams,
    body: SavedActionUpdate,
    response: SavedAction,
  }),
  'actions.delete': defineRoute({
    name: 'actions.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/actions/{id}',
    auth: 'scope',
    scope: 'actions:write',
    summary: 'Delete a saved action (documented extra; 409 while a schedule uses it)',
    params: IdParams,
    response: SavedAction,
  }),
  'actions.run': defineRoute({
    name: 'actions.run',
    surface: 'v2',
    method: 'POST',
    path: '/actions/{id}/run',
    auth: 'scope',
    scope: 'actions:exec',
    summary: 'Run a saved action now; one result per target',
    description:
      'Runs through the exec service exactly as `POST /exec` with the same targets would: an offline ' +
      "target is a result, a target outside the key's allowed assets refuses the whole run with 404. " +
      'With an `Idempotency-Key` header, a repeat of the same key by the same credential within 24 hours ' +
      'answers the first run and runs nothing (a key still running answers 409; a key used for another ' +
      'action answers 409).',
    params: IdParams,
    response: ActionRun,
    idempotent: true,
  }),
} satisfies Record<string, RouteContract>;
