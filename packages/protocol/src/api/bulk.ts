/** Bulk operations over many assets: one request, one result per target. */
import { Type, type Static } from 'typebox';
import { serviceActions } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { GroupRef, Targets } from './actions.js';
import { Maybe } from './shared.js';

export const BulkServiceAction = Type.Object(
  {
    /** The unit name, checked as for `POST /assets/{id}/services/{name}/{action}`. */
    service: Type.String({ minLength: 1, maxLength: 256 }),
    action: Type.Enum<[...typeof serviceActions]>([...serviceActions]),
    targets: Type.Optional(Targets),
    group: Type.Optional(GroupRef),
  },
  { additionalProperties: false },
);
export type BulkServiceAction = Static<typeof BulkServiceAction>;

export const bulkStatuses = ['ok', 'offline', 'error'] as const;
export const BulkServiceResult = Type.Object({
  asset_id: Type.String(),
  status: Type.Enum<[...typeof bulkStatuses]>([...bulkStatuses]),
  active_state: Maybe(Type.String()),
  error: Maybe(Type.String()),
});
export type BulkServiceResult = Static<typeof BulkServiceResult>;

export const BulkServiceSummary = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  ok: Type.Integer({ minimum: 0 }),
  offline: Type.Integer({ minimum: 0 }),
  error: Type.Integer({ minimum: 0 }),
});

export const BulkServiceOutcome = Type.Object({
  results: Type.Array(BulkServiceResult),
  summary: BulkServiceSummary,
});
export type BulkServiceOutcome = Static<typeof BulkServiceOutcome>;

export const bulkContracts = {
  'bulk.serviceAction': defineRoute({
    name: 'bulk.serviceAction',
    surface: 'v2',
    method: 'POST',
    path: '/bulk/service-action',
    auth: 'scope',
    scope: 'bulk:write',
    summary: 'Start, stop or restart a service on many assets (targets or group); one result per asset',
    description:
      'Each target is authorized as a single service action is; a target unknown or outside the key’s ' +
      'allowed assets (a group is its members) refuses the whole request with 404 before anything runs. ' +
      'An offline target, or one whose agent refuses, is a result.',
    body: BulkServiceAction,
    response: BulkServiceOutcome,
  }),
} satisfies Record<string, RouteContract>;
