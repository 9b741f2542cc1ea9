/**
 * Remote sessions (issue 16): interactive terminals (and desktops) on an asset, through the hub and the
 * agent's channel; persistent while no browser is attached, for a grace period; recorded as asciicast v2.
 * Who may attach to a session or read a recording: its owner, or an admin (one rule in the hub).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { PaginationQuery } from '../envelope.js';
import { streamLimits } from '../agent-streams.js';
import { IdParams, Maybe, NullableTimestamp, Timestamp, assetParam, literals } from './shared.js';

export const sessionKinds = ['terminal', 'desktop'] as const;
export type SessionKind = (typeof sessionKinds)[number];
export const sessionStates = ['live', 'ended'] as const;

export const sessionLimits = {
  /** The recent output a re-attach replays first. */
  scrollbackBytes: 64 * 1024,
  /** Live sessions one user (or key) may hold at once. */
  perOwner: 16,
  /** Live sessions on one hub. */
  perHub: 500,
  /** Bytes one client may have waiting in its socket before it counts as not reading. */
  clientQueueBytes: 1024 * 1024,
  /** How long a client may stay over clientQueueBytes before it is closed. */
  clientStallMs: 10_000,
  /** Largest frame a client may send (input or a control message). */
  clientFrameBytes: 16 * 1024,
  /** Input bytes a client may send per second (a paste is fine; a flood is closed). */
  clientInputBytesPerSecond: 256 * 1024,
  /** Clients attached to one session at once. */
  clientsPerSession: 8,
  /** A recording's size cap; beyond it recording stops and the recording is marked truncated. */
  recordingBytes: 32 * 1024 * 1024,
} as const;

/**
 * The attach WebSocket (`GET /sessions/{id}/attach`): binary frames carry terminal bytes both ways (keyboard
 * in, screen out); text frames are small JSON control messages. Client → hub:
 * `{"type":"resize","cols":C,"rows":R}`, `{"type":"close"}`. Hub → client:
 * `{"type":"status","state":"live","replayed":N}` after the scrollback replay, then
 * `{"type":"ended","reason":…,"exit_code":…}` when the session ends.
 */
export const sessionCloseCodes = {
  /** The session ended (shell exited, closed, idle timeout). */
  ended: 4000,
  /** The caller's credential ended. */
  credentialEnded: 4001,
  /** `policy.interactive_enabled` was turned off (desktops close with it too). */
  policyDisabled: 4003,
  /**
   * The caller's key changed and may no longer use the session (it lost `assets:exec` or the asset); the
   * reason says what it lacks. When it was the session's owner, the session ends too (decision 0049).
   */
  accessWithdrawn: 4403,
  /** The client broke the attach protocol (a malformed or oversized frame). */
  protocolError: 4400,
  /** The client did not read its output in time. */
  slowClient: 4008,
  /** The client sent input faster than allowed. */
  inputFlood: 4009,
  /** Another client took the session's place limit. */
  tooManyClients: 4029,
} as const;

export const SessionCreate = Type.Object(
  {
    kind: Type.Enum<[...typeof sessionKinds]>([...sessionKinds]),
    cols: Type.Optional(
      Type.Integer({
        minimum: streamLimits.terminalCols.min,
        maximum: streamLimits.terminalCols.max,
        default: 80,
      }),
    ),
    rows: Type.Optional(
      Type.Integer({
        minimum: streamLimits.terminalRows.min,
        maximum: streamLimits.terminalRows.max,
        default: 24,
      }),
    ),
    /**
     * A device-owner proof for `session:<kind>:<asset id>` (POST /api/mobile/webauthn/proofs; decision 0033).
     * Optional; when present the hub spends it before anything opens: invalid, expired, for another purpose
     * or already spent → 403 and no session.
     */
    device_proof: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  },
  { additionalProperties: false },
);
export type SessionCreate = Static<typeof SessionCreate>;

export const Session = Type.Object({
  id: Type.String(),
  kind: Type.Enum<[...typeof sessionKinds]>([...sessionKinds]),
  asset_id: Type.String(),
  owner_type: literals(['session', 'api_key'] as const),
  owner_id: Type.String(),
  state: Type.Enum<[...typeof sessionStates]>([...sessionStates]),
  cols: Type.Integer(),
  rows: Type.Integer(),
  /** Browsers attached now (live sessions only). */
  attached: Type.Integer({ minimum: 0 }),
  /**
   * True when the hub process running this live session did not answer in time (it is gone, or the cluster
   * bus is down): `attached`, `cols`, `rows` and `last_activity_at` are then those stored at create, not the
   * live ones. False for every session whose values are live, and for ended sessions.
   */
  stale: Type.Boolean(),
  created_at: Timestamp,
  last_activity_at: Timestamp,
  ended_at: NullableTimestamp,
  end_reason: Maybe(Type.String()),
  exit_code: Maybe(Type.Integer()),
  recording_id: Maybe(Type.String()),
});
export type Session = Static<typeof Session>;

export const Recording = Type.Object({
  id: Type.String(),
  session_id: Type.String(),
  asset_id: Type.String(),
  owner_type: literals(['session', 'api_key'] as const),
  owner_id: Type.String(),
  format: Type.Literal('asciicast-v2'),
  size_bytes: Type.Integer({ minimum: 0 }),
  truncated: Type.Boolean(),
  created_at: Timestamp,
  ended_at: NullableTimestamp,
});
export type Recording = Static<typeof Recording>;

const SessionListQuery = Type.Object(
  {
    ...PaginationQuery.properties,
    state: Type.Optional(Type.Enum<[...typeof sessionStates]>([...sessionStates])),
  },
  { additionalProperties: false },
);

export const sessionsContracts = {
  'sessions.create': defineRoute({
    name: 'sessions.create',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/sessions',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Open an interactive session (a terminal) on an asset',
    description:
      'Needs policy.interactive_enabled (403 policy_disabled otherwise), an interactive-capable role (not ' +
      'viewer) and an online asset (409 asset_offline). Attach to it with GET /sessions/{id}/attach.',
    asset: assetParam,
    params: IdParams,
    body: SessionCreate,
    response: Session,
    successStatus: 201,
  }),
  'sessions.list': defineRoute({
    name: 'sessions.list',
    surface: 'v2',
    method: 'GET',
    path: '/sessions',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "List sessions: the caller's own; admins see all",
    query: SessionListQuery,
    response: Session,
    list: true,
  }),
  'sessions.get': defineRoute({
    name: 'sessions.get',
    surface: 'v2',
    method: 'GET',
    path: '/sessions/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Get a session (its owner or an admin)',
    params: IdParams,
    response: Session,
  }),
  'sessions.close': defineRoute({
    name: 'sessions.close',
    surface: 'v2',
    method: 'DELETE',
    path: '/sessions/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Close a session: its shell ends (its owner or an admin)',
    params: IdParams,
    response: Session,
  }),
  'sessions.attach': defineRoute({
    name: 'sessions.attach',
    surface: 'v2',
    method: 'GET',
    path: '/sessions/{id}/attach',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'WebSocket attach to a live session: binary terminal bytes both ways, JSON control messages',
    description:
      'The owner or an admin; policy.interactive_enabled is checked at every attach. The recent screen ' +
      '(up to 64 KiB) is replayed first, then live output. Text frames: client {"type":"resize","cols","rows"} ' +
      'or {"type":"close"}; hub {"type":"status",…} and {"type":"ended",…}. Close codes: 4000 ended, 4001 ' +
      'credential ended, 4003 policy disabled (also when it is turned off while attached), 4403 the key changed ' +
      'and may no longer use the session, 4400 malformed frame, 4008 not reading, 4009 input flood.',
    params: IdParams,
    raw: true,
    upgrade: true,
  }),
  'sessions.recordings': defineRoute({
    name: 'sessions.recordings',
    surface: 'v2',
    method: 'GET',
    path: '/recordings',
    auth: 'scope',
    scope: 'assets:exec',
    summary: "List session recordings: the caller's own; admins see all",
    query: PaginationQuery,
    response: Recording,
    list: true,
  }),
  'sessions.recording': defineRoute({
    name: 'sessions.recording',
    surface: 'v2',
    method: 'GET',
    path: '/recordings/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Get a recording (its owner or an admin)',
    params: IdParams,
    response: Recording,
  }),
  'sessions.recordingCast': defineRoute({
    name: 'sessions.recordingCast',
    surface: 'v2',
    method: 'GET',
    path: '/recordings/{id}/cast',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Download a recording as an asciicast v2 file (its owner or an admin; audited)',
    params: IdParams,
    raw: true,
    readsSecrets: true,
  }),
  'sessions.recordingDelete': defineRoute({
    name: 'sessions.recordingDelete',
    surface: 'v2',
    method: 'DELETE',
    path: '/recordings/{id}',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Delete a recording (its owner or an admin)',
    params: IdParams,
    response: Recording,
  }),
} satisfies Record<string, RouteContract>;
