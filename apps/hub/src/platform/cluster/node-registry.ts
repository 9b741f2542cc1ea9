/**
 * Which hub processes are alive (decision 0038). Each process is a node with a lease it renews; a node whose
 * lease ran out is gone, and exactly one surviving process is told so (to mark its agents offline, release
 * what it held). The embedded default is a cluster of one (`createSingleNodeRegistry`); the shared one keeps
 * its leases in the database (`db-node-registry.ts`).
 */

export type NodeGoneListener = (nodeId: string) => Promise<void> | void;

export interface NodeRegistry {
  /** This process's node id (the cluster bus's). */
  readonly nodeId: string;
  /** The nodes whose lease held at the last renewal, this one included. */
  liveNodes(): ReadonlySet<string>;
  isLive(nodeId: string): boolean;
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

/** The embedded default: one node, always live, that never sees another go. */
export function createSingleNodeRegistry(nodeId: string): NodeRegistry {
  const live: ReadonlySet<string> = new Set([nodeId]);
  return {
    nodeId,
    liveNodes: () => live,
    isLive: (id) => id === nodeId,
    onNodeGone: () => () => undefined,
    start: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}
