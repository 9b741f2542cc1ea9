/** Commands on one asset, or on many (targets or a group), answered as one body or as NDJSON lines. */
import { Type, type Static } from 'typebox';
import { LeftRunning } from '../agent-messages.js';
import { defineRoute, type RouteContract } from '../contract.js';
import { idPatternFor } from '../ids.js';
import { AssetId, IdParams, Maybe, assetParam } from './shared.js';

export const execLimits = {
  defaultTimeout: 30,
  maxTimeout: 3600,
  commandBytes: 65_536,
  streamBytes: 1_048_576,
  /**
   * stdout + stderr bytes a fan-out may hold at once: everything in a JSON body, or what is not yet written
   * in an NDJSON stream. Results past it keep status, exit code and duration; their streams are cut.
   */
  fanOutResultBytes: 67_108_864,
};
export const ExecRequest = Type.Object(
  {
    command: Type.String({ minLength: 1, maxLength: execLimits.commandBytes }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: execLimits.maxTimeout, default: 30 })),
  },
  { additionalProperties: false },
);
export type ExecRequest = Static<typeof ExecRequest>;
export const ExecManyRequest = Type.Object(
  {
    targets: Type.Optional(Type.Array(AssetId, { maxItems: 20_000, uniqueItems: true })),
    group: Type.Optional(Type.String({ pattern: idPatternFor('group') })),
    command: Type.String({ minLength: 1, maxLength: execLimits.commandBytes }),
    timeout: Type.Optional(Type.Integer({ minimum: 1, maximum: execLimits.maxTimeout, default: 30 })),
  },
  { additionalProperties: false },
);
export type ExecManyRequest = Static<typeof ExecManyRequest>;

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

export const execContracts = {
  'exec.single': defineRoute({
    name: 'exec.single',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/exec',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Run a one-shot command (timeout default 30 s)',
    asset: assetParam,
    params: IdParams,
    body: ExecRequest,
    response: ExecResult,
  }),
  'exec.many': defineRoute({
    name: 'exec.many',
    surface: 'v2',
    method: 'POST',
    path: '/exec',
    auth: 'scope',
    scope: 'assets:exec',
    summary: 'Run a command on many assets (targets or group); one result per asset',
    description:
      'With `Accept: application/x-ndjson` the answer is a stream: one result object per line as each ' +
      'target answers, then `{"summary": …, "request_id": …}`; a stream without that last line broke off. ' +
      "Authorization, validation and the 404 for a target unknown or outside the key's allowed assets (a " +
      'group is its members) come first, as a JSON error, and nothing runs. stdout and stderr of all ' +
      'targets together are bounded (execLimits.fanOutResultBytes: 64 MiB as written in JSON, held at ' +
      'once): results past it keep status, exit code and duration with their streams cut and ' +
      '`truncated: true`. A client that goes away mid-stream does not stop commands already sent.',
    body: ExecManyRequest,
    response: ExecManyResult,
    stream: { mediaType: 'application/x-ndjson', line: ExecStreamLine },
  }),
} satisfies Record<string, RouteContract>;
