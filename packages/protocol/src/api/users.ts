/** Local console users (admin), on the console surface. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { assignableRoles, roles } from '../roles.js';
import { IdParams, NullableTimestamp, Timestamp, limits, literals } from './shared.js';

const Username = Type.String({
  minLength: 3,
  maxLength: limits.usernameLength,
  pattern: '^[a-zA-Z0-9._@-]+$',
});
const Password = Type.String({ minLength: limits.passwordMinLength, maxLength: 256 });
export const User = Type.Object({
  id: Type.String(),
  username: Type.String(),
  role: literals(roles),
  created_at: Timestamp,
  updated_at: Timestamp,
  /** When an admin disabled the account (decision 0087); null while it may sign in. */
  disabled_at: NullableTimestamp,
});
export type User = Static<typeof User>;
export const UserCreate = Type.Object(
  { username: Username, password: Password, role: literals(assignableRoles) },
  { additionalProperties: false },
);
export type UserCreate = Static<typeof UserCreate>;
export const UserUpdate = Type.Object(
  { role: Type.Optional(literals(assignableRoles)), password: Type.Optional(Password) },
  { additionalProperties: false, minProperties: 1 },
);
export type UserUpdate = Static<typeof UserUpdate>;

export const UserDeleteQuery = Type.Object(
  {
    /**
     * The user the deleted user's schedules run as from now on, and who owns their shared terminal snippets
     * (decision 0087): without it, a user whom a schedule runs as is not deleted (409, the schedules named),
     * and shared snippets stay under the deleted user's id. It must name an enabled operator or admin: a
     * viewer (who cannot run schedules or edit snippets) or a disabled user is refused (400), nothing deleted.
     */
    reassign_to: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  },
  { additionalProperties: false },
);
export type UserDeleteQuery = Static<typeof UserDeleteQuery>;

export const usersContracts = {
  'users.list': defineRoute({
    name: 'users.list',
    surface: 'console',
    method: 'GET',
    path: '/auth/users',
    auth: 'admin',
    summary: 'List local users',
    query: PaginationQuery,
    response: User,
    list: true,
  }),
  'users.create': defineRoute({
    name: 'users.create',
    surface: 'console',
    method: 'POST',
    path: '/auth/users',
    auth: 'admin',
    summary: 'Create a local user',
    body: UserCreate,
    response: User,
    successStatus: 201,
  }),
  'users.update': defineRoute({
    name: 'users.update',
    surface: 'console',
    method: 'PATCH',
    path: '/auth/users/{id}',
    auth: 'admin',
    summary: 'Change a user role or reset the password',
    params: IdParams,
    body: UserUpdate,
    response: User,
  }),
  'users.disable': defineRoute({
    name: 'users.disable',
    surface: 'console',
    method: 'POST',
    path: '/auth/users/{id}/disable',
    auth: 'admin',
    summary: 'Disable a user: no sign-in, sessions ended, keys refused, schedules not run',
    params: IdParams,
    response: User,
  }),
  'users.enable': defineRoute({
    name: 'users.enable',
    surface: 'console',
    method: 'POST',
    path: '/auth/users/{id}/enable',
    auth: 'admin',
    summary: 'Enable a disabled user again (their keys work again)',
    params: IdParams,
    response: User,
  }),
  'users.delete': defineRoute({
    name: 'users.delete',
    surface: 'console',
    method: 'DELETE',
    path: '/auth/users/{id}',
    auth: 'admin',
    summary:
      'Delete a user with their sessions, API keys, passkeys, push subscriptions, personal snippets, bookmarks and saved filters; the audit trail keeps their name',
    params: IdParams,
    query: UserDeleteQuery,
    response: User,
  }),
} satisfies Record<string, RouteContract>;
