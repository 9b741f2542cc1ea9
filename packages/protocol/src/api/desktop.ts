/**
 * Desktop credentials (spec 5.5.2, decision 0030): the VNC password of an asset's desktop, set by an admin,
 * sealed at rest and never returned by any read. The hub releases it only in the answer of a desktop session
 * create that passed the interactive `session_start` policy check (the sessions area).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, Timestamp, assetParam } from './shared.js';

export const desktopLimits = {
  /** RFB's VncAuth uses the first 8 characters; other security types (VeNCrypt Plain) take longer ones. */
  passwordLength: 256,
  usernameLength: 128,
} as const;

export const DesktopCredentialsSet = Type.Object(
  {
    password: Type.String({ minLength: 1, maxLength: desktopLimits.passwordLength }),
    /** For security types with a user name (VeNCrypt Plain); VncAuth has none. */
    username: Type.Optional(Maybe(Type.String({ minLength: 1, maxLength: desktopLimits.usernameLength }))),
  },
  { additionalProperties: false },
);
export type DesktopCredentialsSet = Static<typeof DesktopCredentialsSet>;

/** Whether a desktop password is held for the asset: never the password itself. */
export const DesktopCredentialsStatus = Type.Object({
  asset_id: Type.String(),
  password_set: Type.Boolean(),
  username_set: Type.Boolean(),
  updated_at: Maybe(Timestamp),
});
export type DesktopCredentialsStatus = Static<typeof DesktopCredentialsStatus>;

/** What a desktop session create releases to the console once the policy check passed. */
export const DesktopCredentials = Type.Object({
  password: Type.String(),
  username: Maybe(Type.String()),
});
export type DesktopCredentials = Static<typeof DesktopCredentials>;

export const desktopContracts = {
  'desktop.credentials': defineRoute({
    name: 'desktop.credentials',
    surface: 'v2',
    method: 'GET',
    path: '/assets/{id}/desktop',
    auth: 'scope',
    scope: 'assets:read',
    summary: "Whether the asset's desktop has a password on the hub (never the password)",
    asset: assetParam,
    params: IdParams,
    response: DesktopCredentialsStatus,
  }),
  'desktop.setCredentials': defineRoute({
    name: 'desktop.setCredentials',
    surface: 'v2',
    method: 'PUT',
    path: '/assets/{id}/desktop',
    auth: 'admin',
    summary: "Set the asset's desktop (VNC) password (admin, write-only)",
    description:
      'Sealed at rest and never returned. Released only to the console in the answer of a desktop session ' +
      'create that passed the `policy.interactive_enabled` check.',
    // Admin routes are not scoped to assets: a key restricted to some assets may not use them.
    unrestrictedOnly: true,
    params: IdParams,
    body: DesktopCredentialsSet,
    response: DesktopCredentialsStatus,
  }),
  'desktop.clearCredentials': defineRoute({
    name: 'desktop.clearCredentials',
    surface: 'v2',
    method: 'DELETE',
    path: '/assets/{id}/desktop',
    auth: 'admin',
    summary: "Forget the asset's desktop password (admin)",
    // Admin routes are not scoped to assets: a key restricted to some assets may not use them.
    unrestrictedOnly: true,
    params: IdParams,
    response: DesktopCredentialsStatus,
  }),
} satisfies Record<string, RouteContract>;
