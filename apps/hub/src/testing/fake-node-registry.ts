/**
 * Node registries of several hub processes in one test (decision 0038's interface): one set of live nodes
 * shared by all, a start that joins it and a close that leaves it, and `kill` that ends a node's lease and
 * tells one survivor, as the database registry does. Each lease has an epoch (decision 0053): `regain` registers
 * a node again under the next one and tells its own `onLeaseRegained` listeners. A process's listing can be held
 * (`hold`) as a renewal that read the leases earlier keeps it, until `refresh`.
 */
import {
  alwaysHeldLease,
  type LeaseRegainedListener,
  type NodeGoneListener,
  type NodeRegistry,
} from '../platform/cluster/node-registry.js';

export class FakeNodeRegistries {
  /** Live nodes and the epoch of each one's lease. */
  private readonly live = new Map<string, number>();
  private readonly listeners = new Map<string, Set<NodeGoneListener>>();
  private readonly regainedListeners = new Map<string, Set<LeaseRegainedListener>>();
  /** Listings held for a process (what its last renewal read), by node. */
  private readonly heldListings = new Map<string, ReadonlyMap<string, number>>();

  registry(nodeId: string): NodeRegistry {
    const listeners = new Set<NodeGoneListener>();
    const regained = new Set<LeaseRegainedListener>();
    this.listeners.set(nodeId, listeners);
    this.regainedListeners.set(nodeId, regained);
    const listing = () => this.heldListings.get(nodeId) ?? this.live;
    return {
      ...alwaysHeldLease(),
      epoch: () => this.live.get(nodeId) ?? 0,
      onLeaseRegained: (listener) => {
        regained.add(listener);
        return () => regained.delete(listener);
      },
      nodeId,
      liveNodes: () => new Set(listing().keys()),
      isLive: (id) => listing().has(id),
      epochOf: (id) => listing().get(id),
      onNodeGone: (listener) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      start: () => {
        this.live.set(nodeId, 1);
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
    const epoch = this.live.get(nodeId);
    this.live.delete(nodeId);
    for (const listener of this.listeners.get(told) ?? []) await listener(nodeId, epoch);
  }

  /**
   * The node registers again under the next epoch; `tell` (default true) runs its own `onLeaseRegained`
   * listeners, as the database registry does. Resolves with the new epoch once they have run.
   */
  async regain(nodeId: string, epoch: number, tell = true): Promise<number> {
    this.live.set(nodeId, epoch);
    if (tell) for (const listener of this.regainedListeners.get(nodeId) ?? []) await listener(epoch);
    return epoch;
  }

  /** From now on `process` lists what it lists now, or `listing` (node → epoch), until `refresh`. */
  hold(process: string, listing: ReadonlyMap<string, number> = new Map(this.live)): void {
    this.heldListings.set(process, listing);
  }

  refresh(process: string): void {
    this.heldListings.delete(process);
  }
}
