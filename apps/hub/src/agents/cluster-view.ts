/**
 * The cluster view (decision 0039): which other hub process holds which agent, answered synchronously so
 * `isConnected`, `session` and the console's lists cover the whole cluster. Each holder publishes its
 * agents' connects and disconnects, coalesced into one message per flush interval (a reconnect storm of
 * thousands of agents is a few messages, not thousands); a process that starts asks every live node for a
 * snapshot of what it holds; a node that is gone has its entries dropped.
 *
 * While the bus is down nothing published arrives, so local changes wait (flushed once it is back) and, when it
 * reconnects, every live node is asked for its snapshot again, which replaces what the view had of that node:
 * the agents that connected or went meanwhile (decision 0054).
 */
import {
  agentKind,
  clusterLimits,
  clusterSubjects,
  wire,
  type SessionWire,
  type ViewMessage,
} from './cluster-wire.js';
import type { OwnedStates } from '../platform/cluster/owned-state.js';
import type { Logger } from '../platform/logger.js';
import type { AgentGateway, AgentSessionInfo } from './agent-gateway.js';

const viewDefaults = {
  flushMs: 100,
  snapshotTimeoutMs: 10_000,
} as const;

export interface ClusterViewDeps {
  /** This process's own agents. */
  local: Pick<AgentGateway, 'session' | 'sessions' | 'isConnected'>;
  logger: Logger;
  /** Told when a remote agent appears or goes (caches of what isConnected answers). */
  onChange?: (assetId: string) => void;
  /** The owned-state seam: snapshots are its agent kind's requests; a node's entries go when it does. */
  owned: OwnedStates;
  flushMs?: number;
  snapshotTimeoutMs?: number;
}

export interface ClusterView {
  /** The other node holding the agent, or null. */
  holder(assetId: string): string | null;
  session(assetId: string): AgentSessionInfo | null;
  /** Remote sessions (those not also held here). */
  sessions(): AgentSessionInfo[];
  count(): number;
  /** A local agent connected or went: published with the next batch. */
  localChanged(assetId: string): void;
  dropNode(node: string): void;
  /** Subscribes, answers snapshots and asks each live node for its own. */
  start(): Promise<void>;
  /** Publishes every local agent as gone (this process stops holding them) and unsubscribes. */
  close(): void;
}

interface Entry {
  node: string;
  session: AgentSessionInfo;
}

function toWire(session: AgentSessionInfo): SessionWire {
  return {
    asset_id: session.assetId,
    connected_at: session.connectedAt.toISOString(),
    last_seen_at: session.lastSeenAt.toISOString(),
    remote_address: session.remoteAddress,
    hello: session.hello,
  };
}

function fromWire(session: SessionWire): AgentSessionInfo | null {
  const connectedAt = new Date(session.connected_at);
  const lastSeenAt = new Date(session.last_seen_at);
  if (Number.isNaN(connectedAt.getTime()) || Number.isNaN(lastSeenAt.getTime())) return null;
  return {
    assetId: session.asset_id,
    connectedAt,
    lastSeenAt,
    remoteAddress: session.remote_address,
    hello: session.hello,
  };
}

function chunked<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** Sessions in messages of at most viewBatch sessions and about viewBatchBytes of JSON each. */
function bySize(sessions: readonly SessionWire[]): SessionWire[][] {
  const out: SessionWire[][] = [];
  let part: SessionWire[] = [];
  let bytes = 0;
  for (const session of sessions) {
    const size = JSON.stringify(session).length;
    if (
      part.length > 0 &&
      (part.length >= clusterLimits.viewBatch || bytes + size > clusterLimits.viewBatchBytes)
    ) {
      out.push(part);
      part = [];
      bytes = 0;
    }
    part.push(session);
    bytes += size;
  }
  if (part.length > 0) out.push(part);
  return out;
}

export function createClusterView(deps: ClusterViewDeps): ClusterView {
  const { local, logger, owned } = deps;
  const { bus, registry } = owned;
  const isGone = (node: string) => owned.isGone(node);
  const agents = owned.kind(agentKind);
  agents.answer('snapshot', () => ({ sessions: local.sessions().map(toWire) }));
  const flushMs = deps.flushMs ?? viewDefaults.flushMs;
  const snapshotTimeoutMs = deps.snapshotTimeoutMs ?? viewDefaults.snapshotTimeoutMs;
  const entries = new Map<string, Entry>();
  const byNode = new Map<string, Set<string>>();
  /** The seam's hold on each node the view has entries of. */
  const holds = new Map<string, () => void>();
  const changed = new Set<string>();
  /** Assets a message touched while snapshots were on their way: the message is newer than the snapshot. */
  let touchedDuringSnapshot: Set<string> | null = null;
  const unsubscribes: (() => void)[] = [];
  let timer: NodeJS.Timeout | null = null;
  let closed = false;

  function put(node: string, session: AgentSessionInfo): void {
    const previous = entries.get(session.assetId);
    if (previous && previous.node !== node) byNode.get(previous.node)?.delete(session.assetId);
    entries.set(session.assetId, { node, session });
    let set = byNode.get(node);
    if (!set) {
      byNode.set(node, (set = new Set()));
      if (!holds.has(node))
        holds.set(
          node,
          owned.hold(node, () => {
            dropNode(node);
          }),
        );
    }
    set.add(session.assetId);
    deps.onChange?.(session.assetId);
  }

  function dropNode(node: string): void {
    holds.get(node)?.();
    holds.delete(node);
    const ids = byNode.get(node);
    byNode.delete(node);
    for (const assetId of ids ?? []) {
      if (entries.get(assetId)?.node !== node) continue;
      entries.delete(assetId);
      deps.onChange?.(assetId);
    }
  }

  function remove(node: string, assetId: string): void {
    // Only the node that holds it may take it away: a late disconnect of the old holder changes nothing.
    if (entries.get(assetId)?.node !== node) return;
    entries.delete(assetId);
    byNode.get(node)?.delete(assetId);
    deps.onChange?.(assetId);
  }

  function publish(message: ViewMessage): void {
    try {
      bus.publish(clusterSubjects.view, message);
    } catch (error) {
      logger.warn({ err: error }, 'publishing the agent view failed');
    }
  }

  function flush(): void {
    // A publish now would be dropped: the changes wait for the bus.
    if (changed.size === 0 || !bus.status().connected) return;
    const up: SessionWire[] = [];
    const down: string[] = [];
    for (const assetId of changed) {
      const session = local.isConnected(assetId) ? local.session(assetId) : null;
      if (session) up.push(toWire(session));
      else down.push(assetId);
    }
    changed.clear();
    for (const part of bySize(up)) publish({ up: part, down: [] });
    for (const part of chunked(down, clusterLimits.viewBatch)) publish({ up: [], down: part });
  }

  function onView(data: unknown, node: string): void {
    if (node === bus.nodeId || isGone(node)) return;
    if (!wire.view.check(data)) {
      logger.warn({ node }, 'an invalid agent view message from another hub process was dropped');
      return;
    }
    for (const item of data.up) {
      const session = fromWire(item);
      if (!session) continue;
      touchedDuringSnapshot?.add(session.assetId);
      put(node, session);
    }
    for (const assetId of data.down) {
      touchedDuringSnapshot?.add(assetId);
      remove(node, assetId);
    }
  }

  /**
   * Takes `node`'s snapshot. With `replace` (after a reconnect) it is the whole truth about the node: its
   * entries missing from it are dropped, unless a newer message touched them meanwhile.
   */
  async function snapshotOf(node: string, touched: Set<string>, replace = false): Promise<void> {
    let reply: { sessions: SessionWire[] };
    try {
      reply = await agents.request(node, 'snapshot', {}, { timeoutMs: snapshotTimeoutMs });
    } catch (error) {
      logger.warn({ err: error, node }, 'a hub process did not send (valid) agents');
      return;
    }
    if (isGone(node)) return;
    const held = new Set<string>();
    for (const item of reply.sessions) {
      held.add(item.asset_id);
      if (touched.has(item.asset_id) || local.isConnected(item.asset_id)) continue;
      const session = fromWire(item);
      if (session) put(node, session);
    }
    if (!replace) return;
    for (const assetId of [...(byNode.get(node) ?? [])]) {
      if (!held.has(assetId) && !touched.has(assetId)) remove(node, assetId);
    }
  }

  /** Asks every live node for its snapshot: what they published while the bus was down never came. */
  async function takeSnapshots(replace: boolean): Promise<void> {
    const others = [...registry.liveNodes()].filter((node) => node !== bus.nodeId);
    const touched = new Set<string>();
    touchedDuringSnapshot = touched;
    try {
      await Promise.all(others.map((node) => snapshotOf(node, touched, replace)));
    } finally {
      if (touchedDuringSnapshot === touched) touchedDuringSnapshot = null;
    }
  }

  return {
    holder(assetId) {
      const entry = entries.get(assetId);
      if (!entry || isGone(entry.node)) return null;
      return entry.node;
    },

    session(assetId) {
      const entry = entries.get(assetId);
      if (!entry || isGone(entry.node)) return null;
      return { ...entry.session };
    },

    sessions() {
      const out: AgentSessionInfo[] = [];
      for (const [assetId, entry] of entries) {
        if (isGone(entry.node) || local.isConnected(assetId)) continue;
        out.push({ ...entry.session });
      }
      return out;
    },

    count() {
      let n = 0;
      for (const [assetId, entry] of entries) {
        if (!isGone(entry.node) && !local.isConnected(assetId)) n += 1;
      }
      return n;
    },

    localChanged(assetId) {
      if (!bus.shared || closed) return;
      changed.add(assetId);
    },

    dropNode,

    async start() {
      if (!bus.shared) return;
      unsubscribes.push(
        bus.subscribe(clusterSubjects.view, (data, meta) => {
          onView(data, meta.from);
        }),
        bus.onReconnected(() => {
          if (closed) return;
          flush();
          void takeSnapshots(true);
        }),
        // A node taken for gone is back (decision 0053): what it published meanwhile was dropped, so ask it.
        owned.onNodeBack((node) =>
          closed ? undefined : snapshotOf(node, touchedDuringSnapshot ?? new Set(), true),
        ),
      );
      timer = setInterval(flush, flushMs);
      timer.unref();
      await takeSnapshots(false);
    },

    close() {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      if (!bus.shared) return;
      for (const session of local.sessions()) changed.add(session.assetId);
      // Every agent this process held is gone from it now, whatever the local gateway still says.
      const down = [...changed];
      changed.clear();
      for (const part of chunked(down, clusterLimits.viewBatch)) publish({ up: [], down: part });
      for (const unsubscribe of unsubscribes.splice(0)) unsubscribe();
      for (const release of holds.values()) release();
      holds.clear();
    },
  };
}
