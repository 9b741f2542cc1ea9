/**
 * Service checks (issue 33, decision 0079): HTTP(S), TCP and ping probes of the services the fleet runs, run by
 * the hub through its egress guard or by a chosen agent on its own network (decision 0084), at an interval,
 * with a history, uptime and the TLS certificate's expiry.
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { idPatternFor } from '../ids.js';
import { checkKinds, checkLimits, checkStatuses } from '../check-limits.js';
import { AssetId, IdParams, Maybe, Name, NullableTimestamp, Timestamp, literals, paged } from './shared.js';

export { checkKinds, checkLimits, checkStatuses, type CheckKind, type CheckStatus } from '../check-limits.js';

const Interval = Type.Integer({
  minimum: checkLimits.minIntervalSeconds,
  maximum: checkLimits.maxIntervalSeconds,
  description: 'Seconds between runs, 10 to 86400',
});
const Timeout = Type.Integer({ minimum: 1, maximum: checkLimits.maxTimeoutSeconds });
const Target = Type.String({ minLength: 1, maxLength: checkLimits.targetLength });
const ExpectedStatus = Type.Array(Type.Integer({ minimum: 100, maximum: 599 }), {
  minItems: 1,
  maxItems: checkLimits.expectedStatuses,
  uniqueItems: true,
});
const ExpectedBody = Type.String({ minLength: 1, maxLength: checkLimits.expectedBodyLength });
const CertWarnDays = Type.Integer({ minimum: 0, maximum: checkLimits.maxCertWarnDays });

export const ServiceCheck = Type.Object({
  id: Type.String(),
  name: Type.String(),
  kind: literals(checkKinds),
  /** `http`: an http(s) URL; `tcp`: `host:port`; `ping`: a host name or address. */
  target: Type.String(),
  /** The asset the service runs on (who may see the check, and the alerts it raises); null for none. */
  asset_id: Maybe(Type.String()),
  /**
   * The asset whose agent runs the check, on its own network (decision 0084); null: the hub runs it through
   * its egress guard.
   */
  run_from_asset_id: Maybe(Type.String()),
  interval_seconds: Type.Integer(),
  timeout_seconds: Type.Integer(),
  /** `http`: the statuses that count as up; null means any 2xx or 3xx. */
  expected_status: Maybe(Type.Array(Type.Integer())),
  /** `http`: text the body must contain (in its first 64 KiB). */
  expected_body: Maybe(Type.String()),
  /** `http` with https: whether the certificate must be trusted (false still reads its expiry). */
  tls_verify: Type.Boolean(),
  /** Days before the certificate's expiry that the check warns. */
  cert_warn_days: Type.Integer(),
  enabled: Type.Boolean(),
  status: literals(checkStatuses),
  /** Failed runs in a row (0 while up). */
  consecutive_failures: Type.Integer(),
  last_run_at: NullableTimestamp,
  last_latency_ms: Maybe(Type.Integer()),
  last_status_code: Maybe(Type.Integer()),
  last_error: Maybe(Type.String()),
  /** The TLS certificate's notAfter at the last https run that saw one. */
  cert_expires_at: NullableTimestamp,
  /** The certificate expires within `cert_warn_days` (or has expired). */
  cert_expiring: Type.Boolean(),
  next_run_at: NullableTimestamp,
  /** Share of runs that were up, 0 to 1, over the window; null with no run in it. */
  uptime_24h: Maybe(Type.Number()),
  uptime_7d: Maybe(Type.Number()),
  created_at: Timestamp,
  updated_at: Timestamp,
});
export type ServiceCheck = Static<typeof ServiceCheck>;

export const ServiceCheckCreate = Type.Object(
  {
    name: Name,
    kind: literals(checkKinds),
    target: Target,
    asset_id: Type.Optional(Maybe(AssetId)),
    run_from_asset_id: Type.Optional(Maybe(AssetId)),
    interval_seconds: Type.Optional(Interval),
    timeout_seconds: Type.Optional(Timeout),
    expected_status: Type.Optional(Maybe(ExpectedStatus)),
    expected_body: Type.Optional(Maybe(ExpectedBody)),
    tls_verify: Type.Optional(Type.Boolean()),
    cert_warn_days: Type.Optional(CertWarnDays),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
export type ServiceCheckCreate = Static<typeof ServiceCheckCreate>;

export const ServiceCheckUpdate = Type.Object(
  {
    name: Type.Optional(Name),
    target: Type.Optional(Target),
    asset_id: Type.Optional(Maybe(AssetId)),
    run_from_asset_id: Type.Optional(Maybe(AssetId)),
    interval_seconds: Type.Optional(Interval),
    timeout_seconds: Type.Optional(Timeout),
    expected_status: Type.Optional(Maybe(ExpectedStatus)),
    expected_body: Type.Optional(Maybe(ExpectedBody)),
    tls_verify: Type.Optional(Type.Boolean()),
    cert_warn_days: Type.Optional(CertWarnDays),
    enabled: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
);
export type ServiceCheckUpdate = Static<typeof ServiceCheckUpdate>;

export const ServiceCheckResult = Type.Object({
  id: Type.String(),
  check_id: Type.String(),
  at: Timestamp,
  /**
   * False when the check could not be run at all (its agent offline, or without the `checks` capability):
   * `error` says why, `ok` is false, and the run counts neither as up nor as down (decision 0084).
   */
  ran: Type.Boolean(),
  ok: Type.Boolean(),
  latency_ms: Maybe(Type.Integer()),
  status_code: Maybe(Type.Integer()),
  error: Maybe(Type.String()),
  cert_expires_at: NullableTimestamp,
});
export type ServiceCheckResult = Static<typeof ServiceCheckResult>;

export const ServiceCheckListQuery = Type.Object({
  asset: Type.Optional(AssetId),
  status: Type.Optional(literals(checkStatuses)),
});

/** A discovery suggestion (its listening port or container) made a check in one call. */
export const ServiceCheckFromSuggestion = Type.Object(
  {
    suggestion_id: Type.String({ pattern: idPatternFor('discoverySuggestion') }),
    interval_seconds: Type.Optional(Interval),
  },
  { additionalProperties: false },
);
export type ServiceCheckFromSuggestion = Static<typeof ServiceCheckFromSuggestion>;

export const checksContracts = {
  'checks.create': defineRoute({
    name: 'checks.create',
    surface: 'v2',
    method: 'POST',
    path: '/checks',
    auth: 'scope',
    scope: 'checks:write',
    summary: 'Create a service check',
    description:
      '`http` (an http or https URL; expected `expected_status`, any 2xx/3xx by default, and ' +
      '`expected_body` text), `tcp` (`host:port`, a connection opened) or `ping` (a host). The hub runs it ' +
      'every `interval_seconds` (10 to 86400) through its egress guard: private and loopback targets are ' +
      "refused unless the outbound policy allows them. With `run_from_asset_id` that asset's agent runs it " +
      "on its own network instead (the caller needs `assets:exec` there, and the admin role for the hub's own host).",
    body: ServiceCheckCreate,
    response: ServiceCheck,
    successStatus: 201,
  }),
  'checks.list': defineRoute({
    name: 'checks.list',
    surface: 'v2',
    method: 'GET',
    path: '/checks',
    auth: 'scope',
    scope: 'checks:read',
    summary: 'List service checks with status, uptime and certificate expiry',
    query: paged(ServiceCheckListQuery),
    response: ServiceCheck,
    list: true,
  }),
  'checks.get': defineRoute({
    name: 'checks.get',
    surface: 'v2',
    method: 'GET',
    path: '/checks/{id}',
    auth: 'scope',
    scope: 'checks:read',
    summary: 'One service check',
    params: IdParams,
    response: ServiceCheck,
  }),
  'checks.update': defineRoute({
    name: 'checks.update',
    surface: 'v2',
    method: 'PATCH',
    path: '/checks/{id}',
    auth: 'scope',
    scope: 'checks:write',
    summary: 'Change a service check, or pause and resume it',
    params: IdParams,
    body: ServiceCheckUpdate,
    response: ServiceCheck,
  }),
  'checks.delete': defineRoute({
    name: 'checks.delete',
    surface: 'v2',
    method: 'DELETE',
    path: '/checks/{id}',
    auth: 'scope',
    scope: 'checks:write',
    summary: 'Remove a service check (its history goes with it)',
    params: IdParams,
    response: ServiceCheck,
  }),
  'checks.run': defineRoute({
    name: 'checks.run',
    surface: 'v2',
    method: 'POST',
    path: '/checks/{id}/run',
    auth: 'scope',
    scope: 'checks:write',
    summary: 'Run a service check now and answer its result',
    params: IdParams,
    response: ServiceCheckResult,
  }),
  'checks.results': defineRoute({
    name: 'checks.results',
    surface: 'v2',
    method: 'GET',
    path: '/checks/{id}/results',
    auth: 'scope',
    scope: 'checks:read',
    summary: 'Run history of a service check, newest first',
    params: IdParams,
    query: paged(Type.Object({})),
    response: ServiceCheckResult,
    list: true,
  }),
  'checks.from_suggestion': defineRoute({
    name: 'checks.from_suggestion',
    surface: 'v2',
    method: 'POST',
    path: '/check-suggestions',
    auth: 'scope',
    scope: 'checks:write',
    summary: "Create a check from a discovery suggestion's address and port",
    description:
      "A listening port becomes a `tcp` check of the address it listens on (the asset's first address when " +
      'it listens on every address), a container one of its first published port, a LAN host a `ping`.',
    unrestrictedOnly: true,
    body: ServiceCheckFromSuggestion,
    response: ServiceCheck,
    successStatus: 201,
  }),
} satisfies Record<string, RouteContract>;
