/**
 * Desktop credentials (spec 5.5.2, decision 0030): the VNC password of an asset's desktop, set by an admin,
 * sealed at rest and never returned by any read. The hub releases it only in the answer of a desktop session
 * create that passed the interactive `session_start` policy check (the sessions area).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, Timestamp, assetParam, literals } from './shared.js';

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

/**
 * A desktop session create's optional body: the device-owner proof for `session:desktop:<asset id>` (decision
 * 0033). Without a body (or null) the create asks for none.
 */
export const DesktopSessionCreate = Maybe(
  Type.Object(
    {
      /** Spent before anything opens: invalid, expired, for another purpose or already spent → 403. */
      device_proof: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    },
    { additionalProperties: false },
  ),
);
export type DesktopSessionCreate = Static<typeof DesktopSessionCreate>;

/** What a desktop session create releases to the console once the policy check passed. */
export const DesktopCredentials = Type.Object({
  password: Type.String(),
  username: Maybe(Type.String()),
});
export type DesktopCredentials = Static<typeof DesktopCredentials>;

/** A desktop session: the console attaches to `stream_path` (WebSocket, binary RFB, noVNC). */
export const DesktopSession = Type.Object({
  id: Type.String(),
  asset_id: Type.String(),
  /** Who opened it, as for terminals: `session` (a console user), or `api_key` (the key itself). */
  owner_type: literals(['session', 'api_key'] as const),
  /** The owner's id: the user's id (`owner_type` `session`), or the API key's id (`api_key`). */
  owner: Type.String(),
  created_at: Timestamp,
  /** The session ends this long after its last console left (or after its creation if none attached). */
  idle_timeout_s: Type.Integer(),
  stream_path: Type.String(),
  attached: Type.Boolean(),
  recording_id: Maybe(Type.String()),
});
export type DesktopSession = Static<typeof DesktopSession>;

/** The create's answer: the session and, once, the desktop password when the hub holds one. */
export const DesktopSessionCreated = Type.Object({
  session: DesktopSession,
  credentials: Maybe(DesktopCredentials),
});
export type DesktopSessionCreated = Static<typeof DesktopSessionCreated>;

export const DesktopSessionParams = Type.Object({
  session_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^dsk_[0-9a-z]{1,40}$' }),
});

export const DesktopRecordingInfo = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  asset_id: Type.String(),
  /** The session's owner, as in DesktopSession; they and admins may fetch it. */
  owner_type: literals(['session', 'api_key'] as const),
  owner: Type.String(),
  started_at: Timestamp,
  ended_at: Maybe(Timestamp),
  bytes: Type.Integer({ minimum: 0 }),
});
export type DesktopRecordingInfo = Static<typeof DesktopRecordingInfo>;

export const DesktopRecordingParams = Type.Object({
  recording_id: Type.String({ minLength: 1, maxLength: 64, pattern: '^drc_[0-9a-z]{1,40}$' }),
});

export const desktopContracts = {
  'desktop.credentials': defineRoute({
    name: 'desktop.credentials',
    surface: 'v2',
    method: 'GET',
    path: '/desktop/credentials/{id}',
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
    path: '/desktop/credentials/{id}',
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
    path: '/desktop/credentials/{id}',
    auth: 'admin',
    summary: "Forget the asset's desktop password (admin)",
    // Admin routes are not scoped to assets: a key restricted to some assets may not use them.
    unrestrictedOnly: true,
    params: IdParams,
    response: DesktopCredentialsStatus,
  }),
  'desktop.createSession': defineRoute({
    name: 'desktop.createSession',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/desktop/sessions',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "Open a desktop session on the asset's own VNC server (through its agent)",
    description:
      'Refused with 403 while `policy.interactive_enabled` is off, 409 `asset_offline` when the agent is not ' +
      'connected. The answer holds the desktop password when an admin set one: the only place it is ever ' +
      'returned. Attach with a WebSocket to `stream_path`. The body is optional: a `device_proof` from the ' +
      "mobile app's device-owner check is spent first (403 when it is not valid).",
    asset: assetParam,
    readsSecrets: true,
    params: IdParams,
    body: DesktopSessionCreate,
    response: DesktopSessionCreated,
    successStatus: 201,
  }),
  'desktop.sessions': defineRoute({
    name: 'desktop.sessions',
    surface: 'v2',
    method: 'GET',
    path: '/desktop/sessions',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Open desktop sessions: your own, or all for an admin',
    response: Type.Array(DesktopSession),
  }),
  'desktop.attach': defineRoute({
    name: 'desktop.attach',
    surface: 'v2',
    method: 'GET',
    path: '/desktop/sessions/{session_id}/stream',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'WebSocket: the desktop as binary RFB (noVNC)',
    description:
      'Its owner or an admin attaches; `policy.interactive_enabled` is checked again at every attach. One ' +
      'console at a time: a new attach replaces the previous one. Closes with 4000 and the reason when the ' +
      'desktop or the agent ends it, 4003 when policy.interactive_enabled is turned off (as terminals), ' +
      '4403 when the key changes and may no longer use the session, 1003 for a text message, 1009 for a ' +
      'message over 256 KiB.',
    params: DesktopSessionParams,
    raw: true,
    upgrade: true,
  }),
  'desktop.closeSession': defineRoute({
    name: 'desktop.closeSession',
    surface: 'v2',
    method: 'DELETE',
    path: '/desktop/sessions/{session_id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'End a desktop session (its owner or an admin)',
    params: DesktopSessionParams,
    response: DesktopSession,
  }),
  'desktop.recordings': defineRoute({
    name: 'desktop.recordings',
    surface: 'v2',
    method: 'GET',
    path: '/desktop/recordings',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Desktop recordings: your own, or all for an admin',
    readsSecrets: true,
    response: Type.Array(DesktopRecordingInfo),
  }),
  'desktop.recording': defineRoute({
    name: 'desktop.recording',
    surface: 'v2',
    method: 'GET',
    path: '/desktop/recordings/{recording_id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'One desktop recording, by id (decision 0030 format): its recorder or an admin',
    readsSecrets: true,
    params: DesktopRecordingParams,
    raw: true,
  }),
} satisfies Record<string, RouteContract>;
