/** REST schemas of the asset operations that run through an agent, and of enrollment and agent management. */
import { Type, type Static, type TSchema } from 'typebox';
import {
  agentLimits,
  LeftRunning,
  LogQuery,
  MetricSample,
  serviceActions,
  signals,
} from './agent-messages.js';
import { idPatternFor } from './ids.js';
import { Name } from './resources.js';

const Timestamp = Type.String({ format: 'date-time' });
const Maybe = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const Path = Type.String({ minLength: 1, maxLength: agentLimits.pathLength });

export const execStatuses = ['ok', 'timeout', 'offline', 'error'] as const;
export const ExecResult = Type.Object({
  asset_id: Type.String(),
  status: Type.Enum<[...typeof execStatuses]>([...execStatuses]),
  exit_code: Maybe(Type.Integer()),
  stdout: Type.String(),
  stderr: Type.String(),
  truncated: Type.Boolean(),
  duration_ms: Type.Integer({ minimum: 0 }),
  error: Maybe(Type.String()),
  /** What the command left running when it ended, all ended by the agent; absent when nothing was. */
  left_running: Type.Optional(LeftRunning),
});
export type ExecResult = Static<typeof ExecResult>;

export const ExecSummary = Type.Object({
  total: Type.Integer({ minimum: 0 }),
  ok: Type.Integer({ minimum: 0 }),
  timeout: Type.Integer({ minimum: 0 }),
  offline: Type.Integer({ minimum: 0 }),
  error: Type.Integer({ minimum: 0 }),
});
export type ExecSummary = Static<typeof ExecSummary>;

export const ExecManyResult = Type.Object({
  results: Type.Array(ExecResult),
  summary: ExecSummary,
});
export type ExecManyResult = Static<typeof ExecManyResult>;

/** The last line of an NDJSON fan-out: it is absent when the stream broke off. */
export const ExecStreamSummary = Type.Object({
  summary: ExecSummary,
  request_id: Type.String(),
});
export type ExecStreamSummary = Static<typeof ExecStreamSummary>;
/** One line of an NDJSON fan-out: a result per target as it arrives, then the summary. */
export const ExecStreamLine = Type.Union([ExecResult, ExecStreamSummary]);
export type ExecStreamLine = Static<typeof ExecStreamLine>;

export const PathQuery = Type.Object({ path: Path });
export const DeleteQuery = Type.Object({
  path: Path,
  recursive: Type.Optional(Type.Boolean({ default: false })),
});

/** Uploads travel as base64 in JSON; the route's body limit allows the largest file plus encoding. */
export const fileUploadBodyBytes = Math.ceil((agentLimits.fileBytes * 4) / 3) + 64 * 1024;
export const FileWrite = Type.Object(
  {
    path: Path,
    // No maxLength: the route's body limit bounds it, and the service answers 413 for a file over the limit.
    content_base64: Type.String({ pattern: '^[A-Za-z0-9+/]*={0,2}$' }),
    overwrite: Type.Optional(Type.Boolean({ default: false })),
  },
  { additionalProperties: false },
);
export type FileWrite = Static<typeof FileWrite>;
export const FileMkdir = Type.Object(
  { path: Path, recursive: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export const FileMove = Type.Object(
  { from: Path, to: Path, overwrite: Type.Optional(Type.Boolean({ default: false })) },
  { additionalProperties: false },
);
export type FileMove = Static<typeof FileMove>;

export const ProcessKill = Type.Object(
  {
    pid: Type.Integer({ minimum: 1, maximum: 4_194_304 }),
    signal: Type.Optional(Type.Enum<[...typeof signals]>([...signals], { default: 'SIGTERM' })),
  },
  { additionalProperties: false },
);
export type ProcessKill = Static<typeof ProcessKill>;

export const ServiceParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200 }),
  // Not starting with '-': systemctl would read such a name as an option.
  name: Type.String({ minLength: 1, maxLength: 256, pattern: '^[A-Za-z0-9@._:][A-Za-z0-9@._:-]*$' }),
});
export { serviceActions };

export const LogsQuery = LogQuery;

export const MetricsQuery = Type.Object({
  from: Type.Optional(Timestamp),
  to: Type.Optional(Timestamp),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000, default: 1000 })),
});
export type MetricsQuery = Static<typeof MetricsQuery>;
export const MetricsSeries = Type.Object({ asset_id: Type.String(), samples: Type.Array(MetricSample) });
export type MetricsSeries = Static<typeof MetricsSeries>;

export const MetricsOverview = Type.Object({
  assets_total: Type.Integer({ minimum: 0 }),
  assets_online: Type.Integer({ minimum: 0 }),
  assets_reporting: Type.Integer({ minimum: 0 }),
  cpu_percent_avg: Maybe(Type.Number()),
  memory_used_percent_avg: Maybe(Type.Number()),
  disk_used_percent_avg: Maybe(Type.Number()),
  window_minutes: Type.Integer({ minimum: 1 }),
  generated_at: Timestamp,
});
export type MetricsOverview = Static<typeof MetricsOverview>;

export const PowerAccepted = Type.Object({ accepted: Type.Boolean() });
export const WakeResult = Type.Object({
  mac: Type.String(),
  sent_via: Type.Enum<['hub', 'agent']>(['hub', 'agent']),
  relay_asset_id: Maybe(Type.String()),
  target: Type.String(),
});
export type WakeResult = Static<typeof WakeResult>;

export const ConnectedAgent = Type.Object({
  asset_id: Type.String(),
  name: Type.String(),
  hostname: Maybe(Type.String()),
  platform: Type.String(),
  agent_version: Maybe(Type.String()),
  connected_at: Timestamp,
  last_seen_at: Timestamp,
  remote_address: Maybe(Type.String()),
  low_power: Type.Boolean(),
  /**
   * The agent's metric samples since the hub started: taken, and dropped by its budget (over the samples per
   * collect interval, not newer than its newest sample, or stamped outside the retention / too far ahead).
   */
  metrics: Type.Object({
    accepted: Type.Integer({ minimum: 0 }),
    over_budget: Type.Integer({ minimum: 0 }),
    duplicate: Type.Integer({ minimum: 0 }),
    out_of_window: Type.Integer({ minimum: 0 }),
  }),
});
export type ConnectedAgent = Static<typeof ConnectedAgent>;

export const EnrollmentTokenCreate = Type.Object(
  {
    name: Name,
    // No schema default: when absent, the runtime settings enrollment.token_default_* decide (24 h, 1 use).
    expires_in_hours: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 24 * 365,
        description: 'Default: the setting enrollment.token_default_expires_hours (24)',
      }),
    ),
    max_uses: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 10_000,
        description: 'Default: the setting enrollment.token_default_max_uses (1)',
      }),
    ),
  },
  { additionalProperties: false },
);
export type EnrollmentTokenCreate = Static<typeof EnrollmentTokenCreate>;

export const EnrollmentToken = Type.Object({
  id: Type.String(),
  name: Type.String(),
  expires_at: Timestamp,
  max_uses: Type.Integer(),
  uses: Type.Integer(),
  revoked: Type.Boolean(),
  created_by: Maybe(Type.String()),
  created_at: Timestamp,
  /** The hub CA's fingerprint, for agents to pin at enrollment (null when the hub serves no CA of its own). */
  ca_fingerprint_sha256: Maybe(Type.String()),
});
export type EnrollmentToken = Static<typeof EnrollmentToken>;
export const EnrollmentTokenCreated = Type.Object({ ...EnrollmentToken.properties, token: Type.String() });
export type EnrollmentTokenCreated = Static<typeof EnrollmentTokenCreated>;

export const CredentialRotated = Type.Object({ asset_id: Type.String(), delivered: Type.Boolean() });
export const CredentialRevoked = Type.Object({ asset_id: Type.String(), revoked: Type.Boolean() });

export const AssetIdPattern = idPatternFor('asset');
