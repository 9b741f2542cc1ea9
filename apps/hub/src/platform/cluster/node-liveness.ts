/**
 * Which other hub processes are gone, for the owned-state seam (decisions 0053 and 0058): what depends on a node
 * is held against it and ended once when it goes, told by the registry (one survivor, which tells the others on
 * `svc.nodes.gone`) or found by one sweep of the nodes held against the registry's listing. A gone mark is for
 * the lease epoch that went: a node listed, or saying it is back, under a newer epoch is back, whatever order
 * the others learn of its going and its return. A process that registered again says so to each other one and
 * waits, bounded, for them to take it back.
 */
import { Compile } from 'typebox/compile';
import { Type } from 'typebox';
import type { Logger } from '../logger.js';
import type { ClusterBus } from './cluster-bus.js';
import type { NodeRegistry } from './node-registry.js';
import { WireId } from './wire-values.js';

/** A process that learned a node is gone tells the others (the registry tells only one). */
const nodeGoneSubject = 'svc.nodes.gone';
/**
 * A process that stalled past its lease and registered again under a new epoch asks each other process to take
 * its word again (decision 0053: its node id is the same) and waits, bounded, until they have asked it what it
 * holds: only then does it write its agents online, so no process answers "offline" for an agent shown online.
 */
const nodeBackSubject = (node: string) => `svc.node.${node}.nodes.back`;
const nodeBackTimeoutMs = 3_000;
/**
 * Said of a node gone (the epoch whose lease ran out) and by a node back (its new epoch). The epoch is optional
 * for a process of an earlier version, which sent the node alone: then it means the newest epoch known.
 */
const nodeEpochCheck = Compile(
  Type.Object(
    { node: WireId, epoch: Type.Optional(Type.Integer({ minimum: 0 })) },
    { additionalProperties: false },
  ),
);

const livenessDefaults = {
  /** How often the nodes held are checked against the registry. */
  sweepMs: 1_000,
  /** Departed node ids remembered (a late message from one is ignored). */
  goneKept: 10_000,
} as const;

export interface NodeLiveness {
  /**
   * Ties something to a node's life: `onGone` runs once when the node goes away (then it is released).
   * Returns the release, for when it ends first.
   */
  hold(node: string, onGone: () => void): () => void;
  /** Runs on every process, once per node that goes (the registry, another process's word, or the sweep). */
  onNodeGone(listener: (node: string) => void): () => void;
  /** Runs on every other process when a node taken for gone registered again (decision 0053). */
  onNodeBack(listener: (node: string) => Promise<void> | void): () => void;
  isGone(node: string): boolean;
  /** Subscribes and starts the sweep; returns the stop. */
  start(): () => void;
  /** Ends every hold. */
  close(): void;
}

export function createNodeLiveness(deps: {
  bus: ClusterBus;
  registry: Pick<NodeRegistry, 'isLive' | 'liveNodes' | 'onNodeGone'> &
    Partial<Pick<NodeRegistry, 'onLeaseRegained' | 'epochOf'>>;
  logger: Logger;
  sweepMs?: number;
}): NodeLiveness {
  const { bus, registry, logger } = deps;
  const sweepMs = deps.sweepMs ?? livenessDefaults.sweepMs;
  const held = new Map<string, Set<() => void>>();
  /**
   * Nodes the registry listed, with the epoch listed: one it no longer lists is gone (a new one may not be
   * listed yet). A listing of an epoch already taken for gone is stale (a renewal that read the lease before it
   * was removed) and does not count.
   */
  const listed = new Map<string, number>();
  /**
   * Nodes taken for gone, with the epoch that went (decision 0053). Only that epoch is gone: the node listed,
   * or saying it is back, under a newer one is back, whatever order the messages came in.
   */
  const gone = new Map<string, number>();
  /** The newest epoch each node said it is back under: a word of its going under an older one is stale. */
  const backUnder = new Map<string, number>();
  const listeners = new Set<(node: string) => void>();
  const backListeners = new Set<(node: string) => Promise<void> | void>();
  /**
   * Live processes not yet told that this one registered again (no answer, no responder: NATS came back to it
   * before them, or the bus is down): told again at each sweep while the registry lists them live.
   */
  const untold = new Set<string>();
  let telling = false;
  /** This process's epoch since it last registered again (0 until then: not said to anyone). */
  let ownEpoch = 0;
  const epochOf = (node: string): number => registry.epochOf?.(node) ?? 0;

  async function tellBack(nodes: readonly string[]): Promise<void> {
    telling = true;
    try {
      const told = await Promise.allSettled(
        nodes.map((node) =>
          bus.request(
            nodeBackSubject(node),
            { node: bus.nodeId, epoch: ownEpoch },
            { timeoutMs: nodeBackTimeoutMs },
          ),
        ),
      );
      told.forEach((result, i) => {
        const node = nodes[i];
        if (node === undefined) return;
        if (result.status === 'fulfilled') untold.delete(node);
        else untold.add(node);
      });
    } finally {
      telling = false;
    }
    if (untold.size > 0) logger.warn({ nodes: untold.size }, 'hub processes not yet told this one is back');
  }

  function tellUntold(): void {
    if (telling || untold.size === 0) return;
    for (const node of [...untold]) if (!registry.isLive(node)) untold.delete(node);
    if (untold.size > 0) void tellBack([...untold]);
  }

  let sweep: NodeJS.Timeout | null = null;

  /** `node`'s lease of `epoch` ran out (no epoch: the newest this process knows of it). */
  function nodeGone(node: string, epoch?: number): void {
    if (node === bus.nodeId || gone.has(node)) return;
    const went = epoch ?? Math.max(listed.get(node) ?? 0, backUnder.get(node) ?? 0);
    // It said it is back under a newer epoch before this word of its going arrived.
    if ((backUnder.get(node) ?? 0) > went) return;
    gone.set(node, went);
    if (gone.size > livenessDefaults.goneKept) gone.delete(gone.keys().next().value ?? node);
    listed.delete(node);
    const ends = held.get(node);
    held.delete(node);
    for (const end of ends ?? []) end();
    for (const listener of listeners) listener(node);
  }

  /** `node` registered again under `epoch`: taken at its word again if that is newer than the one that went. */
  async function nodeBack(node: string, epoch: number | undefined): Promise<void> {
    const went = gone.get(node);
    if (epoch !== undefined) backUnder.set(node, Math.max(epoch, backUnder.get(node) ?? 0));
    if (went === undefined || (epoch !== undefined && epoch <= went)) return;
    gone.delete(node);
    logger.info({ node, epoch }, 'a hub process taken for gone registered again');
    await Promise.allSettled([...backListeners].map(async (listener) => listener(node)));
  }

  function sweepOnce(): void {
    tellUntold();
    for (const node of registry.liveNodes()) {
      const epoch = epochOf(node);
      const went = gone.get(node);
      if (went === undefined) listed.set(node, epoch);
      // Listed under a newer epoch than the one that went: back, even if its word never came.
      else if (epoch > went) void nodeBack(node, epoch);
    }
    for (const node of [...held.keys()]) {
      const epoch = listed.get(node);
      if (!registry.isLive(node) && epoch !== undefined) nodeGone(node, epoch);
    }
  }

  function hold(node: string, onGone: () => void): () => void {
    if (gone.has(node)) {
      queueMicrotask(onGone);
      return () => undefined;
    }
    if (registry.isLive(node)) listed.set(node, epochOf(node));
    let set = held.get(node);
    if (!set) held.set(node, (set = new Set()));
    const entry = () => {
      onGone();
    };
    set.add(entry);
    return () => {
      const current = held.get(node);
      current?.delete(entry);
      if (current?.size === 0) held.delete(node);
    };
  }

  return {
    hold,
    onNodeGone(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onNodeBack(listener) {
      backListeners.add(listener);
      return () => backListeners.delete(listener);
    },
    isGone: (node) => gone.has(node),

    start() {
      const unsubscribes = [
        bus.subscribe(nodeGoneSubject, (data) => {
          if (nodeEpochCheck.Check(data)) nodeGone(data.node, data.epoch);
        }),
        // Only a node speaks for itself: the message is signed by its sender (decision 0042).
        bus.respond(nodeBackSubject(bus.nodeId), async (data, meta) => {
          if (!nodeEpochCheck.Check(data) || data.node !== meta.from) throw new Error('invalid node back');
          await nodeBack(data.node, data.epoch);
          return {};
        }),
        registry.onLeaseRegained?.((epoch) => {
          ownEpoch = epoch;
          return tellBack([...registry.liveNodes()].filter((node) => node !== bus.nodeId));
        }) ?? (() => undefined),
        bus.onReconnected(tellUntold),
        registry.onNodeGone((node, epoch) => {
          nodeGone(node, epoch);
          try {
            bus.publish(nodeGoneSubject, epoch === undefined ? { node } : { node, epoch });
          } catch (error) {
            logger.warn({ err: error, node }, 'telling the other hub processes a node is gone failed');
          }
        }),
      ];
      sweep = setInterval(sweepOnce, sweepMs);
      sweep.unref();
      return () => {
        if (sweep) clearInterval(sweep);
        sweep = null;
        for (const unsubscribe of unsubscribes) unsubscribe();
      };
    },

    close() {
      const all = [...held.values()].flatMap((set) => [...set]);
      held.clear();
      for (const end of all) end();
    },
  };
}
