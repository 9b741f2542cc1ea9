/** Groups of assets, with their members. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { AssetId, Description, IdParams, Name, Timestamp, limits } from './shared.js';

export const Group = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.Union([Type.String(), Type.Null()]),
  asset_ids: Type.Array(Type.String()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type Group = Static<typeof Group>;

export const GroupCreate = Type.Object(
  {
    name: Name,
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    asset_ids: Type.Optional(Type.Array(AssetId, { maxItems: limits.assetsPerGroup, uniqueItems: true })),
  },
  { additionalProperties: false },
);
export type GroupCreate = Static<typeof GroupCreate>;

export const GroupUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.Union([Description, Type.Null()])),
    asset_ids: Type.Optional(Type.Array(AssetId, { maxItems: limits.assetsPerGroup, uniqueItems: true })),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type GroupUpdate = Static<typeof GroupUpdate>;

export const groupsContracts = {
  'groups.list': defineRoute({
    name: 'groups.list',
    surface: 'v2',
    method: 'GET',
    path: '/groups',
    auth: 'scope',
    scope: 'groups:read',
    summary: 'List groups',
    query: PaginationQuery,
    response: Group,
    list: true,
  }),
  'groups.create': defineRoute({
    name: 'groups.create',
    surface: 'v2',
    method: 'POST',
    path: '/groups',
    auth: 'scope',
    scope: 'groups:write',
    summary: 'Create a group',
    body: GroupCreate,
    response: Group,
    successStatus: 201,
  }),
  'groups.get': defineRoute({
    name: 'groups.get',
    surface: 'v2',
    method: 'GET',
    path: '/groups/{id}',
    auth: 'scope',
    scope: 'groups:read',
    summary: 'Get a group with its members',
    params: IdParams,
    response: Group,
  }),
  'groups.update': defineRoute({
    name: 'groups.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/groups/{id}',
    auth: 'scope',
    scope: 'groups:write',
    summary: 'Rename a group or replace its members',
    params: IdParams,
    body: GroupUpdate,
    response: Group,
  }),
  'groups.delete': defineRoute({
    name: 'groups.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/groups/{id}',
    auth: 'scope',
    scope: 'groups:write',
    summary: 'Delete a group (its assets stay)',
    params: IdParams,
    response: Group,
  }),
} satisfies Record<string, RouteContract>;
