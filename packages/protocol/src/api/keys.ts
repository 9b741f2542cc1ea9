/** API keys (admin only): created once-shown, listed, patched, revoked. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { assignableRoles, roles } from '../roles.js';
import { AssetId, IdParams, Name, NullableTimestamp, Timestamp, limits, literals } from './shared.js';

export const ApiKey = Type.Object({
  id: Type.String(),
  name: Type.String(),
  prefix: Type.String(),
  role: literals(roles),
  scopes: Type.Array(Type.String()),
  allowed_assets: Type.Array(Type.String()),
  expires_at: NullableTimestamp,
  created_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  last_used_at: NullableTimestamp,
});
export type ApiKey = Static<typeof ApiKey>;

export const ApiKeyCreated = Type.Object({ ...ApiKey.properties, raw_key: Type.String() });
export type ApiKeyCreated = Static<typeof ApiKeyCreated>;

const ScopeText = Type.String({ minLength: 1, maxLength: 64 });
export const ApiKeyCreate = Type.Object(
  {
    name: Name,
    role: literals(assignableRoles),
    scopes: Type.Array(ScopeText, { minItems: 1, maxItems: limits.scopesPerKey }),
    allowed_assets: Type.Optional(Type.Array(AssetId, { maxItems: limits.allowedAssetsPerKey })),
    expires_at: Type.Optional(Timestamp),
  },
  { additionalProperties: false },
);
export type ApiKeyCreate = Static<typeof ApiKeyCreate>;

export const ApiKeyUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    scopes: Type.Optional(Type.Array(ScopeText, { minItems: 1, maxItems: limits.scopesPerKey })),
    allowed_assets: Type.Optional(Type.Array(AssetId, { maxItems: limits.allowedAssetsPerKey })),
    expires_at: Type.Optional(NullableTimestamp),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ApiKeyUpdate = Static<typeof ApiKeyUpdate>;

export const keysContracts = {
  'keys.create': defineRoute({
    name: 'keys.create',
    surface: 'v2',
    method: 'POST',
    path: '/keys',
    auth: 'admin',
    summary: 'Create an API key; the raw key is returned once',
    body: ApiKeyCreate,
    response: ApiKeyCreated,
    successStatus: 201,
  }),
  'keys.list': defineRoute({
    name: 'keys.list',
    surface: 'v2',
    method: 'GET',
    path: '/keys',
    auth: 'admin',
    summary: 'List API keys',
    query: PaginationQuery,
    response: ApiKey,
    list: true,
  }),
  'keys.get': defineRoute({
    name: 'keys.get',
    surface: 'v2',
    method: 'GET',
    path: '/keys/{id}',
    auth: 'admin',
    summary: 'Get an API key',
    params: IdParams,
    response: ApiKey,
  }),
  'keys.update': defineRoute({
    name: 'keys.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/keys/{id}',
    auth: 'admin',
    summary: 'Update name, scopes, allowed assets or expiry of an API key',
    params: IdParams,
    body: ApiKeyUpdate,
    response: ApiKey,
  }),
  'keys.revoke': defineRoute({
    name: 'keys.revoke',
    surface: 'v2',
    method: 'DELETE',
    path: '/keys/{id}',
    auth: 'admin',
    summary: 'Revoke an API key',
    params: IdParams,
    response: ApiKey,
  }),
} satisfies Record<string, RouteContract>;
