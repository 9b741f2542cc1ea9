/**
 * Node registries of several hub processes in one test (decision 0038's interface): one set of live nodes
 * shared by all, a start that joins it and a close that leaves it, and `kill` that ends a node's lease and
 * tells one survivor, as the database registry does.
 */
import {
  alwaysHeldLease,
  type NodeGoneListener,
  type NodeRegistry,
} from '../platform/cluster/node-registry.js';

export class FakeNodeRegistries {
  private readonly live = new Set<string>();
  private readonly listeners = new Map<string, Set<NodeGoneListener>>();

  registry(nodeId: string): NodeRegistry {
    const listeners = new Set<NodeGoneListener>();
    this.listeners.set(nodeId, listeners);
    return {
      ...alwaysHeldLease(),
      nodeId,
      liveNodes: () => new Set(this.live),
      isLive: (id) => this.live.has(id),
      onNodeGone: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      start: () => {
        this.live.add(nodeId);
        return Promise.resolve();
      },
      close: () => {
        this.live.delete(nodeId);
        return Promise.resolve();
      },
    };
  }

  /** The node's lease is gone: only `told` hears it, as one survivor does. */
  async kill(nodeId: string, told: string): Promise<void> {
    this.live.delete(nodeId);
    for (const listener of this.listeners.get(told) ?? []) await listener(nodeId);
  }
}
