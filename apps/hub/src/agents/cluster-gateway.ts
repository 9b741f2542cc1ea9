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
import {
  createOwnedStates,
  InvalidReplyError,
  OwnerGoneError,
  type OwnedStates,
} from '../platform/cluster/owned-state.js';
import { eachInSlices, fanOutSlice } from '../platform/slices.js';
import type { Logger } from '../platform/logger.js';
import {
  AgentOfflineError,
  AgentReplyError,
  AgentTimeoutError,
  type AgentRequestItem,
  type AgentSessionInfo,
} from './agent-gateway.js';
import { createClusterView } from './cluster-view.js';
import { AgentNotDeliveredError, createRerouter } from './cluster-reroute.js';
import { createStreamRelay } from './cluster-streams.js';
import {
  agentKind,
  callError,
  catalog,
  clusterLimits,
  clusterSubjects,
  replyOfError,
  wire,
  type BatchMessage,
  type BatchReply,
  type RequestMessage,
  type RequestReply,
} from './cluster-wire.js';
import type { WebSocketAgentGateway } from './gateway.js';
import type { Presence } from './presence.js';

const clusterDefaults = {
  requestTimeoutMs: 15_000,
  /** Added to a request's timeout for the hops between processes, so the holder's own timeout answers first. */
  marginMs: 2_000,
} as const;

export interface ClusterGatewayDeps {
  local: WebSocketAgentGateway;
  bus: ClusterBus;
  registry: NodeRegistry;
  /**
   * This process's owned-state seam (platform/cluster/owned-state.ts): node-gone handling and the one sweep.
   * Absent, the gateway makes its own, and starts and closes it.
   */
  owned?: OwnedStates;
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
  const ownOwned = deps.owned === undefined;
  const owned =
    deps.owned ??
    createOwnedStates({
      bus,
      registry,
      logger,
      ...(deps.sweepMs !== undefined ? { sweepMs: deps.sweepMs } : {}),
    });
  const isGone = (node: string) => owned.isGone(node);
  const agents = owned.kind(agentKind);
  /** Requests waiting on another process: failed at once when it goes (or this one closes). */
  const waiting = new Set<() => void>();
  const unsubscribes: (() => void)[] = [];
  let closed = false;

  const view = createClusterView({
    local,
    logger,
    owned,
    ...(deps.onRemoteChange ? { onChange: deps.onRemoteChange } : {}),
    ...(deps.viewFlushMs !== undefined ? { flushMs: deps.viewFlushMs } : {}),
    ...(deps.snapshotTimeoutMs !== undefined ? { snapshotTimeoutMs: deps.snapshotTimeoutMs } : {}),
  });
  agents.answer('request', answerRequest);
  agents.answer('batch', answerBatch);
  const relay = createStreamRelay({
    owned,
    kind: agentKind.def.name,
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

  /** Asks the holder, failed at once when this process closes. */
  async function ask<V extends 'request' | 'batch'>(
    holder: string,
    verb: V,
    data: V extends 'request' ? RequestMessage : BatchMessage,
    timeoutMs: number,
  ): Promise<V extends 'request' ? RequestReply : BatchReply> {
    let rejectClosed: () => void = () => undefined;
    const closing = new Promise<never>((_, reject) => {
      rejectClosed = () => {
        reject(new OwnerGoneError(holder));
      };
    });
    waiting.add(rejectClosed);
    try {
      return (await Promise.race([
        agents.request(holder, verb, data as never, { timeoutMs: timeoutMs + marginMs }),
        closing,
      ])) as V extends 'request' ? RequestReply : BatchReply;
    } finally {
      waiting.delete(rejectClosed);
    }
  }

  const wireTimeout = (timeoutMs: number) =>
    Math.min(clusterLimits.maxRequestTimeoutMs, Math.max(1, Math.floor(timeoutMs)));

  /** One target's reply, as a local call would have resolved or thrown. */
  function resultOfReply<T extends AgentRequestType>(
    reply: RequestReply,
    assetId: string,
    type: T,
  ): AgentRequestResult<T> {
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

  async function remoteRequest<T extends AgentRequestType>(
    holder: string,
    assetId: string,
    type: T,
    payload: AgentRequestPayload<T>,
    timeoutMs: number,
  ): Promise<AgentRequestResult<T>> {
    if (!catalog.payloadValid(type, payload))
      throw new AgentReplyError('invalid_argument', `invalid ${type} request`);
    const message: RequestMessage = { asset_id: assetId, type, payload, timeout_ms: wireTimeout(timeoutMs) };
    let reply: RequestReply;
    try {
      reply = await ask(holder, 'request', message, timeoutMs);
    } catch (error) {
      // Not delivered when no process answers for the holder: the agent may have moved.
      if (error instanceof ClusterNoResponderError) throw new AgentNotDeliveredError(assetId);
      throw callError(error, assetId, type);
    }
    return resultOfReply(reply, assetId, type);
  }

  /**
   * One batch to the holder: a promise per item of its replies, in order. The whole batch failing (the holder
   * gone, the bus down, a reply outside the catalogue or of the wrong count) fails each of its targets. `null`
   * when no process answers the holder's batch subject: the holder may be gone, or of a version without
   * batches (a rolling upgrade), so each target goes on its own, which tells the two apart.
   */
  function remoteBatch<T extends AgentRequestType>(
    holder: string,
    type: T,
    items: readonly AgentRequestItem<T>[],
    timeoutMs: number,
  ): Promise<RequestReply | null>[] {
    const message: BatchMessage = {
      type,
      timeout_ms: wireTimeout(timeoutMs),
      items: items.map((item) => ({ asset_id: item.assetId, payload: item.payload })),
    };
    const replies = ask(holder, 'batch', message, timeoutMs).then((reply) => {
      if (reply.results.length !== items.length) throw new InvalidReplyError(agentKind.def.name, 'batch');
      return reply.results;
    });
    return items.map(async (item, k) => {
      try {
        return (await replies)[k] as RequestReply;
      } catch (error) {
        if (error instanceof ClusterNoResponderError) return null;
        throw callError(error, item.assetId, type);
      }
    });
  }

  /** Runs another process's request on an agent held here. */
  async function answerRequest(data: RequestMessage): Promise<RequestReply> {
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

  /** Runs another process's batch on agents held here, started in slices that yield (decision 0057). */
  async function answerBatch(data: BatchMessage): Promise<BatchReply> {
    const results = new Array<RequestReply>(data.items.length);
    await eachInSlices(data.items.length, data.items.length, fanOutSlice, async (i) => {
      const item = data.items[i] as BatchMessage['items'][number];
      try {
        results[i] = await answerRequest({ ...item, type: data.type, timeout_ms: data.timeout_ms });
      } catch (error) {
        // A single request would have failed with this on the caller: the others of the batch still answer.
        const message = error instanceof Error ? error.message : String(error);
        results[i] = { ok: false, error: 'reply', code: 'failed', message: message.slice(0, 200) };
      }
    });
    let bytes = 0;
    for (let i = 0; i < results.length; i++) {
      const reply = results[i] as RequestReply;
      if (!reply.ok) continue;
      bytes += Buffer.byteLength(JSON.stringify(reply.data ?? null));
      if (bytes > clusterLimits.batchReplyBytes)
        results[i] = {
          ok: false,
          error: 'reply',
          code: 'failed',
          message: 'the result was too large to send back with the others of its batch',
        };
    }
    return { results };
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

    requestMany(type, items, options = {}) {
      const timeoutMs = options.timeoutMs ?? requestTimeoutMs;
      const out = new Array<Promise<AgentRequestResult<typeof type>>>(items.length);
      const byHolder = new Map<string, number[]>();
      const here: number[] = [];
      items.forEach((item, i) => {
        const holder = remoteOf(item.assetId);
        if (holder === null) {
          here.push(i);
          return;
        }
        let held = byHolder.get(holder);
        if (!held) byHolder.set(holder, (held = []));
        held.push(i);
      });
      // The targets held here go out together, as local requests (one timer, one serialisation of a payload).
      const sent = local.requestMany(
        type,
        here.map((i) => items[i] as AgentRequestItem<typeof type>),
        options,
      );
      here.forEach((i, k) => {
        out[i] = sent[k] as Promise<AgentRequestResult<typeof type>>;
      });
      for (const [holder, held] of byHolder) {
        for (let start = 0; start < held.length; start += clusterLimits.batchItems) {
          const indexes = held.slice(start, start + clusterLimits.batchItems);
          // A payload the catalogue refuses never leaves this process, and fails its own target only.
          const valid: number[] = [];
          for (const i of indexes) {
            if (catalog.payloadValid(type, (items[i] as AgentRequestItem<typeof type>).payload))
              valid.push(i);
            else out[i] = Promise.reject(new AgentReplyError('invalid_argument', `invalid ${type} request`));
          }
          if (valid.length === 0) continue;
          const batch = valid.map((i) => items[i] as AgentRequestItem<typeof type>);
          const replies = remoteBatch(holder, type, batch, timeoutMs);
          valid.forEach((i, k) => {
            const { assetId, payload } = batch[k] as AgentRequestItem<typeof type>;
            const reply = replies[k] as Promise<RequestReply | null>;
            // The first try is the batch's; a target not delivered goes once more on its own, where it is now.
            out[i] = rerouted(
              holder,
              assetId,
              (node) =>
                node === holder
                  ? reply.then((r) =>
                      r === null
                        ? remoteRequest(holder, assetId, type, payload, timeoutMs)
                        : resultOfReply(r, assetId, type),
                    )
                  : remoteRequest(node, assetId, type, payload, timeoutMs),
              () => local.request(assetId, type, payload, { timeoutMs }),
            );
          });
        }
      }
      return out;
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

    admissionStats: () => local.admissionStats(),

    handleUpgrade(req, socket, head) {
      local.handleUpgrade(req, socket, head);
    },

    readinessChanged(assetId) {
      view.localChanged(assetId);
    },

    async start() {
      if (!bus.shared || closed) return;
      unsubscribes.push(
        bus.subscribe(clusterSubjects.disconnect, (data) => {
          if (!wire.disconnect.check(data)) return;
          local.disconnect(data.asset_id, data.reason);
        }),
        // The seam drops its agents from the view, fails its requests and ends its streams; the one process
        // the registry told marks its agents offline.
        registry.onNodeGone(async (node) => {
          const marked = await deps.presence.nodeGone(node);
          logger.info({ node, agents: marked }, 'a hub process went away: its agents are offline');
        }),
      );
      relay.start();
      if (ownOwned) owned.start();
      await view.start();
    },

    async close() {
      if (closed) {
        await local.close();
        return;
      }
      closed = true;
      view.close();
      relay.close('the hub process relaying the stream is shutting down');
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      for (const reject of [...waiting]) reject();
      waiting.clear();
      if (ownOwned) owned.close();
      await local.close();
    },
  };
}
