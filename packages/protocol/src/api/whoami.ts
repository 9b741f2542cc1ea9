/** The calling credential described (spec: "Discovery"). */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { roles } from '../roles.js';
import { NullableTimestamp, literals } from './shared.js';

export const authTypes = ['api_key', 'session'] as const;
export const Whoami = Type.Object({
  user_id: Type.Union([Type.String(), Type.Null()]),
  role: literals(roles),
  auth_type: literals(authTypes),
  scopes: Type.Array(Type.String()),
  key_id: Type.Optional(Type.String()),
  key_name: Type.Optional(Type.String()),
  expires_at: Type.Optional(NullableTimestamp),
  allowed_assets: Type.Optional(Type.Array(Type.String())),
  available_assets: Type.Integer({ minimum: 0 }),
});
export type Whoami = Static<typeof Whoami>;

export const whoamiContracts = {
  whoami: defineRoute({
    name: 'whoami',
    surface: 'v2',
    method: 'GET',
    path: '/whoami',
    auth: 'authenticated',
    summary: 'The calling credential: role, scopes and accessible assets',
    response: Whoami,
  }),
} satisfies Record<string, RouteContract>;
