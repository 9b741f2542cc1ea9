/**
 * The agent channel over WebSockets (ARCHITECTURE.md section 4): one connection per agent, identified by the
 * credential it upgraded with (channel-auth.ts), speaking the frame catalog of @svc/protocol. Everything an
 * agent sends is untrusted: each frame is size-limited, rate-limited, byte-budgeted (byte-budget.ts) and
 * validated; a malformed result fails its own request, a protocol violation closes the connection (1008), and
 * neither ever throws into the hub. Violations are logged through the refusal log: a few lines per address a
 * minute, then a summary.
 *
 * Memory per connection is a small record plus its pending requests; the gateway keeps one interval for all
 * connections (hello deadlines, batched presence writes), one that pings a share of them at a time (keepalive
 * spread over its interval), and one timer per batch of requests sent together (one for a lone request).
 *
 * Its parts: gateway-upgrade.ts (the upgrade), gateway-connection.ts (a connection's hello, registration and
 * close), gateway-inbound.ts (each frame an agent sends), gateway-requests.ts (requests and their results),
 * gateway-keepalive.ts (the timers) and gateway-frames.ts (the validators).
 */
import { noTelemetry, type Telemetry } from '../platform/telemetry/telemetry.js';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import {
  agentLimits,
  agentProtocolVersion,
  type AgentRequestResult,
  type AgentRequestType,
  type HubMoving,
  type DiscoveryDefaults,
} from '@svc/protocol';
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Logger } from '../platform/logger.js';
import { createRefusalLog, type RefusalLog } from '../platform/refusal-log.js';
import {
  AgentOfflineError,
  AgentReplyError,
  type AgentGateway,
  type AgentRequestItem,
  type AgentRequestOptions,
  type AgentSessionInfo,
  type AgentStreams,
  type MetricsSink,
} from './agent-gateway.js';
import { createByteBudgets, type ByteBudgets } from './byte-budget.js';
import type { Presence } from './presence.js';
import { moveAgents, type MoveOptions, type MoveOutcome } from './move-agents.js';
import { closeCodes, createConnectionLifecycle, type ConnectionTable } from './gateway-connection.js';
import { createFrameReader } from './gateway-inbound.js';
import { startKeepalive } from './gateway-keepalive.js';
import { createRequestSender } from './gateway-requests.js';
import { createUpgradeHandler } from './gateway-upgrade.js';
import { admissionDefaults, createAdmission, type AdmissionOptions } from './gateway-admission.js';

const gatewayDefaults = {
  requestTimeoutMs: 15_000,
  helloTimeoutMs: 10_000,
  keepaliveIntervalMs: 30_000,
  /** A request is refused rather than queued when this much is already waiting to go out to the agent. */
  maxBufferedBytes: 8 * 1024 * 1024,
  maxPendingPerAgent: 256,
  tickMs: 1_000,
  presenceFlushMs: 5_000,
  shutdownGraceMs: 1_000,
} as const;

export interface AgentGatewayDeps {
  clock: Clock;
  logger: Logger;
  events: EventBus;
  metrics: MetricsSink;
  /**
   * The asset an upgrade request authenticates as (channel-auth.ts), or null to refuse it with 401. A thrown
   * HubError refuses it with that error's status (403 `https_required` for plain HTTP).
   */
  authenticate: (req: IncomingMessage) => Promise<{ assetId: string; remoteAddress?: string | null } | null>;
  heartbeatIntervalS: number;
  collectIntervalS: number;
  /** The fleet's service-discovery defaults, read at each welcome so a settings change reaches the next agent. */
  discoveryDefaults?: () => DiscoveryDefaults;
  requestTimeoutMs?: number;
  helloTimeoutMs?: number;
  keepaliveIntervalMs?: number;
  maxBufferedBytes?: number;
  maxPendingPerAgent?: number;
  tickMs?: number;
  presenceFlushMs?: number;
  /** The presence writer (its writes go through the assets module's port). */
  presence: Presence;
  /** Told whenever isConnected(assetId) changes, for caches of what it answers. */
  onReadinessChange?: (assetId: string) => void;
  /** Shared with the HTTP request log and channel auth; one of its own if absent. */
  refusals?: RefusalLog;
  /** Counts frames and bytes in and out (the hub's /metrics). */
  telemetry?: Pick<Telemetry, 'agentFrame'>;
  /** Connections between upgrade and welcome at once, and the queue of those waiting (decision 0089). */
  admission?: Partial<AdmissionOptions>;
  /** Unsolicited bytes per agent (byte-budget.ts); tests pass small ones. */
  byteBudgets?: ByteBudgets;
}

export interface WebSocketAgentGateway extends AgentGateway, AgentStreams {
  /** Always here: a payload the items share is checked and serialised once (gateway-requests.ts). */
  requestMany<T extends AgentRequestType>(
    type: T,
    items: readonly AgentRequestItem<T>[],
    options?: AgentRequestOptions,
  ): Promise<AgentRequestResult<T>>[];
  /** Takes an HTTP upgrade for the agent channel path (the server's 'upgrade' event). */
  handleUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Connections between upgrade and welcome, and upgrades waiting their turn (gateway-admission.ts). */
  admissionStats(): { inFlight: number; queued: number };
  /** Closes every connection (1001), marks their assets offline and stops the interval. */
  close(): Promise<void>;
}

/** What only the process's own gateway does (not the cluster's view over it). */
export interface AgentMover {
  /**
   * The stop of a draining process (decision 0055): refuses new agent connections (503) and tells each agent
   * here to reconnect elsewhere (`hub.moving`), in spread batches; resolves once they have gone or the wait
   * ends. close() ends what is left.
   */
  tellAgentsToMove(options?: MoveOptions): Promise<MoveOutcome>;
}

export function createAgentGateway(deps: AgentGatewayDeps): WebSocketAgentGateway & AgentMover {
  const { logger } = deps;
  const telemetry = deps.telemetry ?? noTelemetry;
  const maxBufferedBytes = deps.maxBufferedBytes ?? gatewayDefaults.maxBufferedBytes;
  const { presence } = deps;
  const refusals = deps.refusals ?? createRefusalLog({ logger });
  const budgets = deps.byteBudgets ?? createByteBudgets();

  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: agentLimits.frameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const table: ConnectionTable = {
    connections: new Map(),
    all: new Set(),
    awaitingHello: new Set(),
    closed: false,
    moving: false,
  };
  const { connections, all, awaitingHello } = table;
  let streamCounter = 0;

  const lifecycle = createConnectionLifecycle({ ...deps, refusals, telemetry, table });
  const { closeConnection, send } = lifecycle;
  const onMessage = createFrameReader({
    logger,
    metrics: deps.metrics,
    refusals,
    telemetry,
    budgets,
    lifecycle,
  });
  const sendRequest = createRequestSender({
    telemetry,
    requestTimeoutMs: deps.requestTimeoutMs ?? gatewayDefaults.requestTimeoutMs,
    maxBufferedBytes,
    maxPending: deps.maxPendingPerAgent ?? gatewayDefaults.maxPendingPerAgent,
  });
  const stopTimers = startKeepalive({
    logger,
    presence,
    budgets,
    table,
    lifecycle,
    helloTimeoutMs: deps.helloTimeoutMs ?? gatewayDefaults.helloTimeoutMs,
    keepaliveIntervalMs: deps.keepaliveIntervalMs ?? gatewayDefaults.keepaliveIntervalMs,
    tickMs: deps.tickMs ?? gatewayDefaults.tickMs,
    presenceFlushMs: deps.presenceFlushMs ?? gatewayDefaults.presenceFlushMs,
  });
  const admission = createAdmission({ ...admissionDefaults, ...deps.admission });
  const handleUpgrade = createUpgradeHandler({
    logger,
    wss,
    table,
    admission,
    authenticate: deps.authenticate,
    onConnection: (ws, assetId, remoteAddress, release) => {
      lifecycle.open(ws, assetId, remoteAddress, onMessage, release);
    },
  });

  return {
    isConnected(assetId) {
      return connections.get(assetId)?.ready === true;
    },

    connectedCount() {
      let n = 0;
      for (const conn of connections.values()) if (conn.ready) n += 1;
      return n;
    },

    session(assetId) {
      const conn = connections.get(assetId);
      return conn?.ready && conn.session ? { ...conn.session } : null;
    },

    sessions() {
      const out: AgentSessionInfo[] = [];
      for (const conn of connections.values()) if (conn.ready && conn.session) out.push({ ...conn.session });
      return out;
    },

    request(assetId, type, payload, options = {}) {
      const conn = connections.get(assetId);
      if (!conn?.ready || conn.closing) return Promise.reject(new AgentOfflineError(assetId));
      return sendRequest.one(conn, assetId, type, payload, options);
    },

    requestMany(type, items, options = {}) {
      return sendRequest.many(
        type,
        items.map((item) => ({ ...item, conn: connections.get(item.assetId) ?? null })),
        options,
      );
    },

    openStream(assetId, options) {
      const conn = connections.get(assetId);
      if (!conn?.ready || conn.closing) return Promise.reject(new AgentOfflineError(assetId));
      if (conn.ws.bufferedAmount > maxBufferedBytes) {
        return Promise.reject(
          new AgentReplyError('failed', 'the connection to the agent is backed up; try again shortly'),
        );
      }
      streamCounter += 1;
      return conn.streams.open(`s${streamCounter.toString(36)}`, options);
    },

    disconnect(assetId, reason) {
      const conn = connections.get(assetId);
      if (conn) closeConnection(conn, closeCodes.policy, reason);
      // A connection that upgraded with the same credential but has not said hello yet goes too.
      for (const waiting of awaitingHello) {
        if (waiting.assetId === assetId) closeConnection(waiting, closeCodes.policy, reason);
      }
    },

    handleUpgrade,

    admissionStats: () => admission.stats(),

    async tellAgentsToMove(options) {
      if (table.closed) return { told: 0, left: 0, ms: 0 };
      table.moving = true;
      const targets = [...connections.values()].filter((conn) => conn.ready);
      let id = 0;
      const outcome = await moveAgents(
        targets,
        {
          stillHere: (conn) => all.has(conn) && !conn.closing,
          notify: (conn, withinMs) => {
            id += 1;
            const payload: HubMoving = { within_ms: withinMs };
            send(conn, { v: agentProtocolVersion, type: 'hub.moving', id: `moving-${String(id)}`, payload });
            return true;
          },
        },
        options,
      );
      logger.info(
        { told: outcome.told, left: outcome.left, ms: outcome.ms },
        'told the agents to move to the other processes',
      );
      return outcome;
    },

    async close() {
      if (table.closed) return;
      table.closed = true;
      admission.close();
      stopTimers();
      const assetIds = [...connections.keys()];
      const open = [...all];
      for (const conn of open) closeConnection(conn, closeCodes.goingAway, 'hub shutting down');
      await presence.flush().catch((error: unknown) => {
        logger.error({ err: error }, 'writing agent presence failed');
      });
      await presence.allDisconnected(assetIds).catch((error: unknown) => {
        logger.error({ err: error }, 'marking agents offline at shutdown failed');
      });
      const deadline = performance.now() + gatewayDefaults.shutdownGraceMs;
      while (all.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const conn of all) conn.ws.terminate();
      await new Promise<void>((resolve) => {
        wss.close(() => {
          resolve();
        });
      });
    },
  };
}
