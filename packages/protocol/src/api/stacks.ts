/** The stack manager (Portainer): the stacks of an endpoint (environment) asset a connector brought. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { IdParams, NullableTimestamp, assetParam, literals } from './shared.js';

export const stackTypes = ['swarm', 'compose', 'kubernetes', 'unknown'] as const;
export const stackStatuses = ['active', 'inactive', 'unknown'] as const;

export const StacksStack = Type.Object({
  /** Portainer's stack id (per install, not stable across installs). */
  id: Type.Integer(),
  name: Type.String(),
  type: literals(stackTypes),
  status: literals(stackStatuses),
  /** Portainer's endpoint (environment) id the stack runs on. */
  endpoint_id: Type.Integer(),
  created_at: NullableTimestamp,
  /** Null when never updated (Portainer sends 0). */
  updated_at: NullableTimestamp,
  created_by: Type.String(),
  /** How many environment variables the stack sets (their values are not shown: they often hold secrets). */
  env_count: Type.Integer(),
});
export type StacksStack = Static<typeof StacksStack>;

export const stacksContracts = {
  'stacks.list': defineRoute({
    name: 'stacks.list',
    surface: 'v2',
    method: 'GET',
    path: '/stacks/assets/{id}/stacks',
    auth: 'scope',
    scope: 'connectors:read',
    summary: 'Portainer stacks',
    description: 'The stacks Portainer manages on this endpoint (environment) asset, sorted by name.',
    asset: assetParam,
    params: IdParams,
    query: PaginationQuery,
    response: StacksStack,
    list: true,
  }),
} satisfies Record<string, RouteContract>;
