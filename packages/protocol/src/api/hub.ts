/** The hub itself: health and readiness, its TLS certificate, its Prometheus metrics, and the OpenAPI document. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { Maybe, NullableTimestamp, Timestamp, literals } from './shared.js';
import { McpStatus } from './mcp.js';
import { TlsStatus } from './tls.js';

/**
 * The cluster bus as `GET /hub/status` reports it: `up` (connected), `down` (SVC_NATS_URL is set and the bus
 * is not connected: the hub is degraded, decision 0054), or `none` (the embedded cluster of one).
 */
export const clusterBusStates = ['up', 'down', 'none'] as const;
export type ClusterBusState = (typeof clusterBusStates)[number];

/** One live hub process of the cluster, from its node lease (decision 0053). */
export const ClusterProcess = Type.Object(
  {
    node_id: Type.String({ minLength: 1, maxLength: 100 }),
    /** The lease's registration: 1 at start, one more each time the process lost it and registered again; 0 alone. */
    epoch: Type.Integer({ minimum: 0 }),
    /** When the process registered (its lease row); null for the embedded cluster of one. */
    started_at: NullableTimestamp,
    /** Until when its last renewal holds the lease; null for the embedded cluster of one, which holds none. */
    lease_expires_at: NullableTimestamp,
    /** Agents whose asset this process marked online (the holder node, decision 0039). */
    agents: Type.Integer({ minimum: 0 }),
    /** The process that answered this request. */
    this_process: Type.Boolean(),
  },
  { additionalProperties: false },
);
export type ClusterProcess = Static<typeof ClusterProcess>;

/** The hub processes sharing this hub's database and bus, as the answering process sees them. */
export const ClusterStatus = Type.Object(
  {
    /** The answering process's node id. */
    node_id: Type.String({ minLength: 1, maxLength: 100 }),
    nats: literals(clusterBusStates),
    /** Why the bus is down (`nats: "down"`); null otherwise. */
    nats_reason: Maybe(Type.String({ maxLength: 300 })),
    /** As `/readyz` `degraded`: only the bus is down; a call that needs another process answers 503. */
    degraded: Type.Boolean(),
    /** The live processes, the answering one included, by start. */
    processes: Type.Array(ClusterProcess),
  },
  { additionalProperties: false },
);
export type ClusterStatus = Static<typeof ClusterStatus>;

export const HubStatus = Type.Object({
  status: literals(['ok', 'degraded'] as const),
  version: Type.String(),
  started_at: Timestamp,
  uptime_seconds: Type.Integer({ minimum: 0 }),
  database: literals(['sqlite', 'postgres'] as const),
  assets: Type.Object({
    total: Type.Integer({ minimum: 0 }),
    online: Type.Integer({ minimum: 0 }),
    offline: Type.Integer({ minimum: 0 }),
    unknown: Type.Integer({ minimum: 0 }),
  }),
  agents_connected: Type.Integer({ minimum: 0 }),
  /** Metric samples since the hub started, and histories of deleted assets still being deleted. */
  metrics: Type.Object({
    /** Dropped by agents' budgets (over budget, duplicate timestamp, outside the window). */
    samples_dropped: Type.Integer({ minimum: 0 }),
    /** Taken but lost by the store: its buffer was full, or a write failed. */
    samples_lost: Type.Integer({ minimum: 0 }),
    purges_pending: Type.Integer({ minimum: 0 }),
  }),
  cluster: ClusterStatus,
  mcp: McpStatus,
  time: Timestamp,
  /**
   * The hub's IANA time zone (its process's: TZ or the machine's setting), so the console can show times as
   * they read where the hub runs beside the viewer's own (decision 0098). The hub stores and answers in UTC.
   */
  time_zone: Type.String({ minLength: 1, maxLength: 100 }),
});
export type HubStatus = Static<typeof HubStatus>;

/**
 * Why `/readyz` says the hub is not ready, in one word: the database does not answer, its schema is not the one
 * this hub runs (migrations not done, or a newer hub migrated it), HTTPS has no certificate loaded, or the
 * process is stopping (SIGTERM: it serves on for SVC_SHUTDOWN_DRAIN_SECONDS so that a load balancer moves to the
 * others first).
 */
export const readinessReasons = ['database', 'migrations', 'tls', 'stopping'] as const;
export type ReadinessReason = (typeof readinessReasons)[number];

/**
 * Why `/readyz` says the hub is degraded: (several processes, SVC_NATS_URL) the cluster bus is not connected. It
 * still serves everything that needs only the database and its own agents, so it stays in the balancer
 * (decision 0054); a call that needs another process answers 503 `cluster_unavailable`.
 */
export type DegradedReason = 'nats';

/** The cluster bus's state on `/readyz`, present only when SVC_NATS_URL is set; why it is down goes to the log. */
export type BusReadiness = 'ok' | 'down';

/**
 * `/readyz`'s body: 200 `{"status":"ready"}`, 200 `{"status":"degraded","reason":"nats","nats":"down"}`, or 503
 * `{"status":"unready","reason":…}`; `nats` with a bus.
 */
export type Readiness =
  | { status: 'ready'; nats?: BusReadiness }
  | { status: 'degraded'; reason: DegradedReason; nats: 'down' }
  | { status: 'unready'; reason: ReadinessReason; nats?: BusReadiness };

export const hubContracts = {
  'hub.healthz': defineRoute({
    name: 'hub.healthz',
    surface: 'root',
    method: 'GET',
    path: '/healthz',
    auth: 'public',
    summary: 'Liveness: 200 {"status":"alive"} while the process serves HTTP',
    raw: true,
  }),
  'hub.readyz': defineRoute({
    name: 'hub.readyz',
    surface: 'root',
    method: 'GET',
    path: '/readyz',
    auth: 'public',
    summary:
      'Readiness: 200 {"status":"ready"}, 200 {"status":"degraded","reason":"nats","nats":"down"}, or 503 {"status":"unready","reason":"database"|"migrations"|"tls"|"stopping"}',
    description:
      'Unauthenticated for load balancers and orchestrators; it reveals nothing beyond ready or not and one word of why.',
    raw: true,
  }),
  'hub.status': defineRoute({
    name: 'hub.status',
    surface: 'v2',
    method: 'GET',
    path: '/hub/status',
    auth: 'scope',
    scope: 'hub:read',
    summary: 'Hub health',
    response: HubStatus,
  }),
  'hub.openapi': defineRoute({
    name: 'hub.openapi',
    operationId: 'openapi',
    surface: 'v2',
    method: 'GET',
    path: '/openapi.json',
    auth: 'public',
    summary: 'This OpenAPI 3.1 document',
    raw: true,
  }),
  'hub.metrics': defineRoute({
    name: 'hub.metrics',
    surface: 'root',
    method: 'GET',
    path: '/metrics',
    auth: 'scope',
    scope: 'hub:metrics',
    unrestrictedOnly: true,
    summary: "The hub's own metrics in the Prometheus text format",
    description:
      'For a Prometheus scrape: an API key with the hub:metrics scope as the bearer token (decision 0034). HTTP requests by route template and status, agent frames and bytes, exec fan-outs, event-stream subscribers and drops, webhook deliveries, connector calls, the cluster (live processes, dropped bus messages, the node lease of this process and the writes its fence refused), database and process figures.',
    raw: true,
  }),
  'hub.tls': defineRoute({
    name: 'hub.tls',
    surface: 'v2',
    method: 'GET',
    path: '/hub/tls',
    auth: 'scope',
    scope: 'hub:read',
    summary: 'TLS certificate status',
    response: TlsStatus,
  }),
} satisfies Record<string, RouteContract>;
