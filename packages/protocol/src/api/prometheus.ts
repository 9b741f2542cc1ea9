/**
 * Prometheus: the fleet as `http_sd_config` targets (decision 0074), and the hub's stored metrics sent to a
 * remote-write receiver (decision 0075).
 */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { connectorTlsModes } from './connectors.js';
import { Maybe, Timestamp, literals } from './shared.js';

/** Tags an operator puts on an asset to steer its target (decision 0074). */
export const prometheusTags = {
  /** `prometheus.port:9101`: the exporter's port on this asset. */
  port: 'prometheus.port:',
  /** `prometheus.address:10.0.0.5`: the address to scrape instead of the first IP address or the hostname. */
  address: 'prometheus.address:',
  /** `prometheus.skip`: the asset is not listed. */
  skip: 'prometheus.skip',
} as const;

export const prometheusLimits = {
  defaultExporterPort: 9100,
  /** Targets listed at most (assets the caller may see, in name order). */
  maxTargets: 10_000,
  groupPorts: 200,
  /** Samples waiting to be sent beyond which the oldest are dropped (the bound an admin may lower or raise). */
  defaultMaxBacklogSamples: 200_000,
  minBacklogSamples: 1_000,
  maxBacklogSamples: 5_000_000,
  urlLength: 2_048,
  credentialsLength: 4_096,
  caLength: 65_536,
} as const;

const Port = Type.Integer({ minimum: 1, maximum: 65_535 });

export const PrometheusGroupPort = Type.Object(
  { group_id: Type.String({ minLength: 1, maxLength: 64 }), port: Port },
  { additionalProperties: false },
);
export type PrometheusGroupPort = Static<typeof PrometheusGroupPort>;

export const PrometheusExporter = Type.Object(
  {
    /** The port of an asset with neither its own `prometheus.port:` tag nor a group port (default 9100). */
    default_port: Port,
    /** Ports by group; an asset in several takes the one of the group whose name sorts first. */
    group_ports: Type.Array(PrometheusGroupPort, { maxItems: prometheusLimits.groupPorts }),
  },
  { additionalProperties: false },
);
export type PrometheusExporter = Static<typeof PrometheusExporter>;

export const remoteWriteAuthKinds = ['none', 'bearer', 'basic'] as const;
export type RemoteWriteAuthKind = (typeof remoteWriteAuthKinds)[number];

/** Remote write as stored, without its credentials (they are sealed and never returned). */
export const RemoteWriteConfig = Type.Object({
  enabled: Type.Boolean(),
  url: Type.String(),
  auth: literals(remoteWriteAuthKinds),
  username: Maybe(Type.String()),
  credentials_set: Type.Boolean(),
  tls_mode: literals(connectorTlsModes),
  tls_ca: Maybe(Type.String()),
  tls_fingerprint: Maybe(Type.String()),
  max_backlog_samples: Type.Integer({ minimum: 0 }),
  updated_at: Timestamp,
});
export type RemoteWriteConfig = Static<typeof RemoteWriteConfig>;

export const RemoteWriteUpdate = Type.Object(
  {
    enabled: Type.Boolean(),
    url: Type.String({ minLength: 1, maxLength: prometheusLimits.urlLength }),
    auth: literals(remoteWriteAuthKinds),
    /** For `basic`. */
    username: Type.Optional(Maybe(Type.String({ minLength: 1, maxLength: 256 }))),
    /** The bearer token or the basic password; omitted keeps the stored one (the same auth kind only). */
    credentials: Type.Optional(Type.String({ minLength: 1, maxLength: prometheusLimits.credentialsLength })),
    tls_mode: Type.Optional(literals(connectorTlsModes)),
    tls_ca: Type.Optional(Maybe(Type.String({ minLength: 1, maxLength: prometheusLimits.caLength }))),
    tls_fingerprint: Type.Optional(Maybe(Type.String({ pattern: '^([0-9A-Fa-f]{2}:?){31}[0-9A-Fa-f]{2}$' }))),
    max_backlog_samples: Type.Optional(
      Type.Integer({
        minimum: prometheusLimits.minBacklogSamples,
        maximum: prometheusLimits.maxBacklogSamples,
      }),
    ),
  },
  { additionalProperties: false },
);
export type RemoteWriteUpdate = Static<typeof RemoteWriteUpdate>;

/** How the sender is doing, as the process that sends (the one holding its lease) last wrote it. */
export const RemoteWriteStatus = Type.Object({
  /** Nothing stored and unsent beyond one request's worth, and the last request succeeded. */
  keeping_up: Type.Boolean(),
  /** Stored samples not yet sent (counted up to a bound: `backlog_capped` when there are more). */
  backlog_samples: Type.Integer({ minimum: 0 }),
  backlog_capped: Type.Boolean(),
  sent_samples: Type.Integer({ minimum: 0 }),
  /** Dropped: beyond the backlog bound, or refused by the receiver with a 4xx other than 429. */
  dropped_samples: Type.Integer({ minimum: 0 }),
  failed_requests: Type.Integer({ minimum: 0 }),
  /** Samples stamped up to this time have been sent or dropped. */
  sent_through: Maybe(Timestamp),
  last_success_at: Maybe(Timestamp),
  last_error: Maybe(Type.String()),
  last_error_at: Maybe(Timestamp),
  updated_at: Maybe(Timestamp),
});
export type RemoteWriteStatus = Static<typeof RemoteWriteStatus>;

export const PrometheusSettings = Type.Object({
  /** The path of the `http_sd_config` endpoint on this hub (a key with `prometheus:sd` reads it). */
  targets_path: Type.String(),
  exporter: PrometheusExporter,
  remote_write: Maybe(RemoteWriteConfig),
  status: Maybe(RemoteWriteStatus),
});
export type PrometheusSettings = Static<typeof PrometheusSettings>;

/** One element of the `http_sd_config` answer: one asset's target and labels. */
export const PrometheusTargetGroup = Type.Object({
  targets: Type.Array(Type.String()),
  labels: Type.Record(Type.String(), Type.String()),
});
export type PrometheusTargetGroup = Static<typeof PrometheusTargetGroup>;

export const prometheusContracts = {
  'prometheus.targets': defineRoute({
    name: 'prometheus.targets',
    surface: 'v2',
    method: 'GET',
    path: '/integrations/prometheus/targets',
    auth: 'scope',
    scope: 'prometheus:sd',
    summary: 'The assets as Prometheus HTTP service discovery targets',
    description:
      "Prometheus' `http_sd_config` format: a JSON array (not the envelope) of `{targets: [\"host:port\"], labels}`, one per asset the caller may see that has an address, with the labels `asset_id`, `name`, `groups` (`,a,b,`), `platform` and `status`. The port is the asset's `prometheus.port:` tag, else its group's, else the default (9100). Decision 0074.",
    raw: true,
  }),
  'prometheus.settings': defineRoute({
    name: 'prometheus.settings',
    surface: 'v2',
    method: 'GET',
    path: '/integrations/prometheus',
    auth: 'admin',
    summary: 'Prometheus exporter ports, remote write and its status',
    response: PrometheusSettings,
  }),
  'prometheus.exporter': defineRoute({
    name: 'prometheus.exporter',
    surface: 'v2',
    method: 'PUT',
    path: '/integrations/prometheus/exporter',
    auth: 'admin',
    summary: 'Set the exporter port of the discovery targets, by default and by group',
    body: PrometheusExporter,
    response: PrometheusSettings,
  }),
  'prometheus.remoteWrite': defineRoute({
    name: 'prometheus.remoteWrite',
    surface: 'v2',
    method: 'PUT',
    path: '/integrations/prometheus/remote-write',
    auth: 'admin',
    summary: 'Configure remote write of the stored metrics',
    description:
      'The URL is vetted by the egress guard; credentials are sealed and never returned. Samples stored from now on are sent (decision 0075).',
    body: RemoteWriteUpdate,
    response: PrometheusSettings,
  }),
  'prometheus.remoteWriteRemove': defineRoute({
    name: 'prometheus.remoteWriteRemove',
    surface: 'v2',
    method: 'DELETE',
    path: '/integrations/prometheus/remote-write',
    auth: 'admin',
    summary: 'Stop remote write and forget its configuration',
    response: PrometheusSettings,
  }),
} satisfies Record<string, RouteContract>;
