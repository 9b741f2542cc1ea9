/** `/status/aggregate` (root surface): counts for a status page, scoped to the caller. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Timestamp } from './shared.js';

export const AggregateStatus = Type.Object({
  scope: Type.Enum<['all', 'restricted']>(['all', 'restricted']),
  assets: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    online: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
  }),
  groups: Type.Integer({ minimum: 0 }),
  generated_at: Timestamp,
});
export type AggregateStatus = Static<typeof AggregateStatus>;

export const statusContracts = {
  'status.aggregate': defineRoute({
    name: 'status.aggregate',
    surface: 'root',
    method: 'GET',
    path: '/status/aggregate',
    auth: 'authenticated',
    summary: 'Aggregate status, scoped to the caller unless the caller is the owner',
    response: AggregateStatus,
  }),
} satisfies Record<string, RouteContract>;
