/**
 * The hub's telemetry as Prometheus metrics (prom-client), in a registry of its own: the counters and
 * histograms `Telemetry` feeds, the figures read when scraped (`ScrapeSources`), and the process's default
 * metrics. Every name starts with `svc_hub_`.
 */
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { NodeLease } from '../cluster/node-registry.js';
import type { Telemetry } from './telemetry.js';

/** Figures that already live elsewhere, read at each scrape instead of being mirrored. */
interface ScrapeSources {
  agentsConnected(): number;
  eventSubscribers(): number;
  /** Event-stream clients dropped for reading too slowly, since the start. */
  eventDrops(): number;
  /** The database's size in bytes (SQLite file; PostgreSQL: the hub's schema), or null when unknown. */
  databaseBytes(): Promise<number | null>;
  /** PostgreSQL pool connections: total, idle, callers waiting; null on SQLite. */
  databasePool(): { total: number; idle: number; waiting: number } | null;
  /** Hub processes whose lease held at the last renewal (1 for the embedded cluster of one). */
  clusterNodes(): number;
  /** Messages from other processes dropped as invalid (bad JSON, wrong envelope, forged event), since the start. */
  clusterDrops(): number;
  /** This process's node lease (decision 0053): its epoch, whether it holds now, the writes its fence refused. */
  lease: Pick<NodeLease, 'epoch' | 'holds' | 'refusedByKind'>;
}

export interface PrometheusTelemetry extends Telemetry {
  /** Where the scrape figures come from; set once the pieces that hold them exist. */
  setSources(sources: ScrapeSources): void;
  /** The exposition text and its content type. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** HTTP methods outside this list count as `other`, so a client cannot invent label values. */
const knownMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** Latency buckets in seconds: a few milliseconds up to the longest operations an agent runs (exec's limit). */
const httpBuckets = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const fanOutBuckets = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const fanOutTargetBuckets = [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000];

/**
 * The process's figures (CPU, memory, event loop, GC, handles), in one registry per process: each collector
 * installs observers that live as long as the process, so hubs started again in one process (a restart on
 * request, tests) share it instead of adding more.
 */
let processRegistry: Registry | null = null;
function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    const registry = new Registry();
    collectDefaultMetrics({ register: registry, prefix: 'svc_hub_' });
    // prom-client names these gauges `_total`, which Prometheus reserves for counters (promtool refuses them);
    // svc_hub_nodejs_active_resources{type} and svc_hub_nodejs_active_handles{type} say the same by type.
    for (const kind of ['handles', 'requests', 'resources'])
      registry.removeSingleMetric(`svc_hub_nodejs_active_${kind}_total`);
    processRegistry = registry;
  }
  return processRegistry;
}

export function createPrometheusTelemetry(): PrometheusTelemetry {
  const registry = new Registry();
  let sources: ScrapeSources | null = null;
  let clusterDropsReported = 0;
  let dropsReported = 0;
  const fencedReported = new Map<string, number>();
  const registers = [registry];

  const httpRequests = new Counter({
    name: 'svc_hub_http_requests_total',
    help: 'HTTP requests answered, by route template, method and status code.',
    labelNames: ['route', 'method', 'status'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'svc_hub_http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template and method.',
    labelNames: ['route', 'method'] as const,
    buckets: httpBuckets,
    registers,
  });
  const frames = new Counter({
    name: 'svc_hub_agent_frames_total',
    help: 'WebSocket frames between the hub and its agents, by direction (in: from agents).',
    labelNames: ['direction'] as const,
    registers,
  });
  const frameBytes = new Counter({
    name: 'svc_hub_agent_frame_bytes_total',
    help: 'Bytes of WebSocket frames between the hub and its agents, by direction.',
    labelNames: ['direction'] as const,
    registers,
  });
  // Counted for every frame to or from an agent: the labelled children are looked up once, not per frame.
  const framesIn = {
    frames: frames.labels({ direction: 'in' }),
    bytes: frameBytes.labels({ direction: 'in' }),
  };
  const framesOut = {
    frames: frames.labels({ direction: 'out' }),
    bytes: frameBytes.labels({ direction: 'out' }),
  };
  const fanOutDuration = new Histogram({
    name: 'svc_hub_exec_fanout_duration_seconds',
    help: 'Time an exec fan-out took from start to its last target.',
    buckets: fanOutBuckets,
    registers,
  });
  const fanOutTargets = new Histogram({
    name: 'svc_hub_exec_fanout_targets',
    help: 'Targets of each exec fan-out.',
    buckets: fanOutTargetBuckets,
    registers,
  });
  const webhookDeliveries = new Counter({
    name: 'svc_hub_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome (failed attempts may be retried).',
    labelNames: ['outcome'] as const,
    registers,
  });
  const connectorCalls = new Counter({
    name: 'svc_hub_connector_calls_total',
    help: 'Calls and periodic checks to connector upstreams, by connector kind and outcome.',
    labelNames: ['kind', 'outcome'] as const,
    registers,
  });
  new Gauge({
    name: 'svc_hub_agents_connected',
    help: 'Agents connected to this hub now.',
    registers,
    collect() {
      this.set(sources?.agentsConnected() ?? 0);
    },
  });
  new Gauge({
    name: 'svc_hub_event_stream_subscribers',
    help: 'Clients of the live event stream now.',
    registers,
    collect() {
      this.set(sources?.eventSubscribers() ?? 0);
    },
  });
  new Counter({
    name: 'svc_hub_event_stream_drops_total',
    help: 'Event-stream clients dropped for reading too slowly.',
    registers,
    collect() {
      // The stream counts its own drops; the counter catches up with that count at each scrape.
      const now = sources?.eventDrops() ?? 0;
      if (now > dropsReported) this.inc(now - dropsReported);
      dropsReported = Math.max(dropsReported, now);
    },
  });
  new Gauge({
    name: 'svc_hub_cluster_nodes',
    help: 'Hub processes live in the cluster (this one included).',
    registers,
    collect() {
      this.set(sources?.clusterNodes() ?? 1);
    },
  });
  new Counter({
    name: 'svc_hub_cluster_messages_dropped_total',
    help: 'Messages from other hub processes dropped as invalid.',
    registers,
    collect() {
      const now = sources?.clusterDrops() ?? 0;
      if (now > clusterDropsReported) this.inc(now - clusterDropsReported);
      clusterDropsReported = Math.max(clusterDropsReported, now);
    },
  });
  new Counter({
    name: 'svc_hub_cluster_fenced_writes_refused_total',
    help: "Writes about owned state refused because this process's node lease had expired, by kind.",
    labelNames: ['kind'] as const,
    registers,
    collect() {
      // The registry counts by kind; the counter catches up with each kind's count at each scrape.
      for (const [kind, now] of sources?.lease.refusedByKind() ?? []) {
        const reported = fencedReported.get(kind) ?? 0;
        if (now > reported) this.inc({ kind }, now - reported);
        fencedReported.set(kind, Math.max(reported, now));
      }
    },
  });
  new Gauge({
    name: 'svc_hub_cluster_lease_epoch',
    help: "This process's node lease registration: 1 at start, one more after each lease lost; 0 alone.",
    registers,
    collect() {
      this.set(sources?.lease.epoch() ?? 0);
    },
  });
  new Gauge({
    name: 'svc_hub_cluster_lease_held',
    help: 'Whether this process holds its node lease now (1), or it expired and its writes are refused (0).',
    registers,
    async collect() {
      const held = (await sources?.lease.holds().catch(() => null)) ?? null;
      if (held !== null) this.set(held ? 1 : 0);
    },
  });
  new Gauge({
    name: 'svc_hub_database_size_bytes',
    help: "The database's size: the SQLite file, or the hub's PostgreSQL schema.",
    registers,
    async collect() {
      const bytes = (await sources?.databaseBytes().catch(() => null)) ?? null;
      if (bytes !== null) this.set(bytes);
    },
  });
  new Gauge({
    name: 'svc_hub_database_pool_connections',
    help: 'PostgreSQL pool connections by state (total, idle, waiting callers); absent on SQLite.',
    labelNames: ['state'] as const,
    registers,
    collect() {
      const pool = sources?.databasePool() ?? null;
      if (!pool) return;
      this.set({ state: 'total' }, pool.total);
      this.set({ state: 'idle' }, pool.idle);
      this.set({ state: 'waiting' }, pool.waiting);
    },
  });

  return {
    httpRequest({ route, method, status, seconds }) {
      const m = knownMethods.has(method) ? method : 'other';
      httpRequests.inc({ route, method: m, status: String(status) });
      httpDuration.observe({ route, method: m }, seconds);
    },
    agentFrame(direction, bytes) {
      const counters = direction === 'in' ? framesIn : framesOut;
      counters.frames.inc();
      counters.bytes.inc(bytes);
    },
    fanOut(targets, seconds) {
      fanOutTargets.observe(targets);
      fanOutDuration.observe(seconds);
    },
    webhookDelivery(outcome) {
      webhookDeliveries.inc({ outcome });
    },
    connectorCall(kind, outcome) {
      connectorCalls.inc({ kind, outcome });
    },
    setSources(next) {
      sources = next;
    },
    async render() {
      const own = await registry.metrics();
      return { contentType: registry.contentType, body: (await processMetrics().metrics()) + own };
    },
  };
}
