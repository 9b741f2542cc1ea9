/**
 * Which hub processes are alive (decision 0038), and the lease each holds (decision 0053). Each process is a
 * node with a lease it renews; a node whose lease ran out is gone, and exactly one surviving process is told so
 * (to mark its agents offline, release what it held). Each registration has an epoch: every write a process
 * makes about what it owns carries the registry's fence, so a process declared gone cannot write afterwards,
 * and one that resumes registers again under a new epoch and re-asserts what it still holds.
 * The embedded default is a cluster of one (`createSingleNodeRegistry`); the shared one keeps its leases in the
 * database (`db-node-registry.ts`).
 */
import { sql, type Expression, type SqlBool } from 'kysely';

/** Told a node gone, with the epoch whose lease ran out (decision 0053). */
export type NodeGoneListener = (nodeId: string, epoch?: number) => Promise<void> | void;
/** Told the new epoch after this process lost its lease and registered again. */
export type LeaseRegainedListener = (epoch: number) => Promise<void> | void;

/** This process's own lease, as the writers of what it owns see it (decision 0053). */
export interface NodeLease {
  /** The current registration: 1 at start, one more after each lease lost; 0 in a cluster of one. */
  epoch(): number;
  /**
   * A condition to AND into a write's WHERE: true only while this process's lease of `epoch` (default: the
   * current one) exists and has not expired. A write that captured the epoch when it took its work (a schedule
   * run) passes that one, so it is refused once the work was handed over, even after a new registration.
   */
  fence(epoch?: number): Expression<SqlBool>;
  /** Whether the fence holds now (asked after a write changed nothing, to tell a refusal from a no-op). */
  holds(epoch?: number): Promise<boolean>;
  /** Notes a write the fence refused: logged once per kind and epoch, counted; never an error to a caller. */
  refused(what: string): void;
  /** How many fenced writes were refused since start. */
  refusedCount(): number;
  /** The same, by the kind `refused` was told (`agent online`, `schedule tick claim`…), for /metrics. */
  refusedByKind(): ReadonlyMap<string, number>;
  /** Called after the lease was lost and this process registered again. Returns the unsubscribe. */
  onLeaseRegained(listener: LeaseRegainedListener): () => void;
}

export interface NodeRegistry extends NodeLease {
  /** This process's node id (the cluster bus's). */
  readonly nodeId: string;
  /** The nodes whose lease held at the last renewal, this one included. */
  liveNodes(): ReadonlySet<string>;
  isLive(nodeId: string): boolean;
  /** The epoch `nodeId`'s lease had at the last renewal (undefined when it was not live then). */
  epochOf(nodeId: string): number | undefined;
  /**
   * Called once across the cluster for each node that is gone (lease expired, or it left cleanly), on one live
   * process, after the node's lease is removed. Returns the unsubscribe.
   */
  onNodeGone(listener: NodeGoneListener): () => void;
  /** Registers this node and starts renewing; resolves once registered. */
  start(): Promise<void>;
  /** Stops renewing and removes this node's lease, so the others see it gone at once. */
  close(): Promise<void>;
}

/** A condition that always holds, in SQL both SQLite and PostgreSQL read. */
const alwaysTrue: Expression<SqlBool> = sql<SqlBool>`1 = 1`;

/** The lease of a process that is the whole cluster (or a test's): never lost, every fenced write passes. */
export function alwaysHeldLease(): NodeLease {
  return {
    epoch: () => 0,
    fence: () => alwaysTrue,
    holds: () => Promise.resolve(true),
    refused: () => undefined,
    refusedCount: () => 0,
    refusedByKind: () => new Map(),
    onLeaseRegained: () => () => undefined,
  };
}

/** The embedded default: one node, always live, that never sees another go. */
export function createSingleNodeRegistry(nodeId: string): NodeRegistry {
  const live: ReadonlySet<string> = new Set([nodeId]);
  return {
    ...alwaysHeldLease(),
    nodeId,
    liveNodes: () => live,
    isLive: (id) => id === nodeId,
    epochOf: (id) => (id === nodeId ? 0 : undefined),
    onNodeGone: () => () => undefined,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
