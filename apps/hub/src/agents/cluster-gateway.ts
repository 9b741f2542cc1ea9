/**
 * The agent gateway of a cluster of hub processes (ARCHITECTURE.md section 5, decision 0039). It wraps this
 * process's WebSocket gateway and answers for every agent of the cluster: an agent held here is served by
 * the local gateway; one held by another process is found in the cluster view (cluster-view.ts) and reached
 * over the cluster bus: requests by request/reply to its holder, streams relayed (cluster-streams.ts),
 * disconnects broadcast. Callers see the same errors whichever process holds the agent. With the embedded
 * cluster of one (`bus.shared` false) every call goes straight to the local gateway.
 */
import { type AgentRequestPayload, type AgentRequestResult, type AgentRequestType } from '@svc/protocol';
import { ClusterNoResponderError, type ClusterBus } from '../platform/cluster/cluster-bus.js';
import type { NodeRegistry } from '../platform/cluster/node-registry.js';
import type { Logger } from '../platform/logger.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentSessionInfo,
} from './agent-gateway.js';
import { createClusterView } from './cluster-view.js';
import { AgentNotDeliveredError, createRerouter } from './cluster-reroute.js';
import { createStreamRelay } from './cluster-streams.js';
import {
  callError,
  catalog,
  clusterLimits,
  clusterSubjects,
  replyOfError,
  wire,
  type RequestMessage,
  type RequestReply,
} from './cluster-wire.js';
import type { WebSocketAgentGateway } from './gateway.js';
import type { Presence } from './presence.js';

const clusterDefaults = {
  requestTimeoutMs: 15_000,
  /** Added to a request's timeout for the hops between processes, so the holder's own timeout answers first. */
  marginMs: 2_000,
  /** How often relayed requests and streams are checked against the registry's live nodes. */
  sweepMs: 1_000,
  /** Departed node ids remembered (a late message of one is ignored). */
  goneKept: 10_000,
} as const;

export interface ClusterGatewayDeps {
  local: WebSocketAgentGateway;
  bus: ClusterBus;
  registry: NodeRegistry;
  /** Marks a departed node's agents offline (registry onNodeGone, on the one process told). */
  presence: Pick<Presence, 'nodeGone'>;
  logger: Logger;
  /** Told when a remote agent's readiness changes (caches of what isConnected answers). */
  onRemoteChange?: (assetId: string) => void;
  requestTimeoutMs?: number;
  marginMs?: number;
  sweepMs?: number;
  viewFlushMs?: number;
  snapshotTimeoutMs?: number;
  rerouteWaitMs?: number;
}

export interface ClusterAgentGateway extends WebSocketAgentGateway {
  /** The local gateway's onReadinessChange: a local agent connected or went. */
  readinessChanged(assetId: string): void;
  /** Joins the cluster: subscribes, answers for the agents held here, takes the others' snapshots. */
  start(): Promise<void>;
}

export function createClusterGateway(deps: ClusterGatewayDeps): ClusterAgentGateway {
  const { local, bus, registry, logger } = deps;
  const requestTimeoutMs = deps.requestTimeoutMs ?? clusterDefaults.requestTimeoutMs;
  const marginMs = deps.marginMs ?? clusterDefaults.marginMs;
  const sweepMs = deps.sweepMs ?? clusterDefaults.sweepMs;
  /** Nodes the registry said were live once: one it no longer lists is gone. */
  const seenLive = new Set<string>();
  const gone = new Set<string>();
  const isGone = (node: string) => gone.has(node);
  /** Requests waiting on another process, by holder: failed at once when it goes. */
  const waiting = new Map<string, Set<(error: Error) => void>>();
  const unsubscribes: (() => void)[] = [];
  let sweepTimer: NodeJS.Timeout | null = null;
  let closed = false;

  const view = createClusterView({
    bus,
    registry,
    local,
    logger,
    isGone,
    ...(deps.onRemoteChange ? { onChange: deps.onRemoteChange } : {}),
    ...(deps.viewFlushMs !== undefined ? { flushMs: deps.viewFlushMs } : {}),
    ...(deps.snapshotTimeoutMs !== undefined ? { snapshotTimeoutMs: deps.snapshotTimeoutMs } : {}),
  });
  const relay = createStreamRelay({
    bus,
    local,
    logger,
    marginMs,
    isHeld: (assetId) => local.isConnected(assetId),
  });
  /** Requests and stream opens that reached no agent go once more, where the view says it is now. */
  const rerouted = createRerouter({
    isLocal: (assetId) => local.isConnected(assetId),
    holderOf: (assetId) => view.holder(assetId),
    isGone,
    isClosed: () => closed,
    ...(deps.rerouteWaitMs !== undefined ? { waitMs: deps.rerouteWaitMs } : {}),
  });

  /** A node is gone: its agents leave the view, its requests fail offline, its streams end. */
  function nodeGone(node: string): void {
    if (node === bus.nodeId || gone.has(node)) return;
    gone.add(node);
    if (gone.size > clusterDefaults.goneKept) gone.delete(gone.values().next().value ?? node);
    seenLive.delete(node);
    view.dropNode(node);
    relay.nodeGone(node);
    const rejects = waiting.get(node);
    waiting.delete(node);
    for (const reject of rejects ?? []) reject(new AgentOfflineError(''));
  }

  function sweep(): void {
    const referenced = new Set([...view.nodes(), ...relay.peers(), ...waiting.keys()]);
    for (const node of registry.liveNodes()) seenLive.add(node);
    for (const node of referenced) {
      if (registry.isLive(node)) seenLive.add(node);
      else if (seenLive.has(node)) nodeGone(node);
    }
  }

  async function remoteRequest<T extends AgentRequestType>(
    holder: string,
    assetId: string,
    type: T,
    payload: AgentRequestPayload<T>,
    timeoutMs: number,
  ): Promise<AgentRequestResult<T>> {
    if (!catalog.payloadValid(type, payload))
      throw new AgentReplyError('invalid_argument', `invalid ${type} request`);
    const message: RequestMessage = {
      asset_id: assetId,
      type,
      payload,
      timeout_ms: Math.min(clusterLimits.maxRequestTimeoutMs, Math.max(1, Math.floor(timeoutMs))),
    };
    let rejectGone: (error: Error) => void = () => undefined;
    const holderGone = new Promise<never>((_, reject) => {
      rejectGone = () => {
        reject(new AgentOfflineError(assetId));
      };
    });
    let set = waiting.get(holder);
    if (!set) waiting.set(holder, (set = new Set()));
    set.add(rejectGone);
    let reply: unknown;
    try {
      reply = await Promise.race([
        bus.request(clusterSubjects.request(holder), message, { timeoutMs: timeoutMs + marginMs }),
        holderGone,
      ]);
    } catch (error) {
      if (error instanceof ClusterNoResponderError) throw new AgentNotDeliveredError(assetId);
      throw callError(error, assetId, type);
    } finally {
      const current = waiting.get(holder);
      current?.delete(rejectGone);
      if (current?.size === 0) waiting.delete(holder);
    }
    if (!wire.requestReply.check(reply))
      throw new AgentReplyError('failed', 'the hub process holding the agent answered invalidly');
    if (reply.ok) {
      if (!catalog.resultValid(type, reply.data))
        throw new AgentReplyError('failed', `the agent answered ${type} with a malformed result`);
      return reply.data as AgentRequestResult<T>;
    }
    if (reply.error === 'not_held') throw new AgentNotDeliveredError(assetId);
    if (reply.error === 'offline') throw new AgentOfflineError(assetId);
    if (reply.error === 'timeout') throw new AgentTimeoutError(assetId, type);
    throw new AgentReplyError(reply.code, reply.message);
  }

  /** Runs another process's request on an agent held here. */
  async function answerRequest(data: unknown): Promise<RequestReply> {
    if (!wire.request.check(data)) throw new Error('invalid agent request');
    const { asset_id: assetId, type, payload } = data;
    if (!catalog.isRequestType(type) || !catalog.payloadValid(type, payload))
      return { ok: false, error: 'reply', code: 'invalid_argument', message: `invalid ${type} request` };
    // Not here (any more): the caller may look for the new holder, as nothing reached the agent.
    if (!local.isConnected(assetId)) return { ok: false, error: 'not_held' };
    try {
      const result: unknown = await local.request(
        assetId,
        type as AgentRequestType,
        payload as AgentRequestPayload<AgentRequestType>,
        { timeoutMs: data.timeout_ms },
      );
      return { ok: true, data: result };
    } catch (error) {
      return replyOfError(error);
    }
  }

  function remoteOf(assetId: string): string | null {
    if (!bus.shared || local.isConnected(assetId)) return null;
    return view.holder(assetId);
  }

  return {
    isConnected(assetId) {
      return local.isConnected(assetId) || (bus.shared && view.holder(assetId) !== null);
    },

    connectedCount() {
      return local.connectedCount() + (bus.shared ? view.count() : 0);
    },

    session(assetId) {
      return local.session(assetId) ?? (bus.shared ? view.session(assetId) : null);
    },

    sessions() {
      const own = local.sessions();
      if (!bus.shared) return own;
      const all: AgentSessionInfo[] = [...own, ...view.sessions()];
      return all;
    },

    request(assetId, type, payload, options = {}) {
      const holder = remoteOf(assetId);
      if (holder === null) return local.request(assetId, type, payload, options);
      const timeoutMs = options.timeoutMs ?? requestTimeoutMs;
      return rerouted(
        holder,
        assetId,
        (node) => remoteRequest(node, assetId, type, payload, timeoutMs),
        () => local.request(assetId, type, payload, { timeoutMs }),
      );
    },

    openStream(assetId, options) {
      const holder = remoteOf(assetId);
      if (holder === null) return local.openStream(assetId, options);
      return rerouted(
        holder,
        assetId,
        (node) => relay.open(node, assetId, options),
        () => local.openStream(assetId, options),
      );
    },

    disconnect(assetId, reason) {
      local.disconnect(assetId, reason);
      if (!bus.shared) return;
      // To every process, not only the holder the view names: the agent may have just moved.
      try {
        bus.publish(clusterSubjects.disconnect, {
          asset_id: assetId,
          reason: reason.slice(0, clusterLimits.reasonLength),
        });
      } catch (error) {
        logger.warn({ err: error, asset_id: assetId }, 'asking the other hub processes to disconnect failed');
      }
    },

    handleUpgrade(req, socket, head) {
      local.handleUpgrade(req, socket, head);
    },

    readinessChanged(assetId) {
      view.localChanged(assetId);
    },

    async start() {
      if (!bus.shared || closed) return;
      unsubscribes.push(
        bus.respond(clusterSubjects.request(bus.nodeId), (data) => answerRequest(data)),
        bus.subscribe(clusterSubjects.disconnect, (data) => {
          if (!wire.disconnect.check(data)) return;
          local.disconnect(data.asset_id, data.reason);
        }),
        bus.subscribe(clusterSubjects.nodeGone, (data) => {
          if (wire.nodeGone.check(data)) nodeGone(data.node);
        }),
        registry.onNodeGone(async (node) => {
          nodeGone(node);
          try {
            bus.publish(clusterSubjects.nodeGone, { node });
          } catch (error) {
            logger.warn({ err: error, node }, 'telling the other hub processes a node is gone failed');
          }
          const marked = await deps.presence.nodeGone(node);
          logger.info({ node, agents: marked }, 'a hub process went away: its agents are offline');
        }),
      );
      relay.start();
      sweepTimer = setInterval(sweep, sweepMs);
      sweepTimer.unref();
      await view.start();
    },

    async close() {
      if (closed) {
        await local.close();
        return;
      }
      closed = true;
      if (sweepTimer) clearInterval(sweepTimer);
      view.close();
      relay.close('the hub process relaying the stream is shutting down');
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      for (const rejects of waiting.values()) for (const reject of rejects) reject(new AgentOfflineError(''));
      waiting.clear();
      await local.close();
    },
  };
}
