/**
 * The cluster a hub process belongs to (decision 0038): its bus and its node registry, chosen by configuration.
 * With SVC_NATS_URL: NATS (every message signed with a key derived from the hub key, decision 0042) and
 * leases in the shared PostgreSQL; without: the embedded cluster of one, where
 * nothing crosses a process and nothing changes for the single hub.
 */
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Logger } from '../logger.js';
import { createLocalClusterBus, newNodeId, type ClusterBus } from './cluster-bus.js';
import { createDbNodeRegistry } from './db-node-registry.js';
import { createNatsClusterBus } from './nats-bus.js';
import { createSingleNodeRegistry, type NodeRegistry } from './node-registry.js';

export interface Cluster {
  bus: ClusterBus;
  registry: NodeRegistry;
}

export function createCluster(deps: {
  natsUrl: string | null;
  /** The bus keys derived from the hub key (`busKeyInfo`): the current one first, then the retired ones'. */
  busKeys: readonly Buffer[];
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  /** How long a node lease lasts without a renewal (SVC_CLUSTER_LEASE_SECONDS, decision 0053). */
  leaseMs?: number;
  /** Told of each message from another process dropped as invalid. */
  onDropped: (reason: string) => void;
}): Cluster {
  const nodeId = newNodeId();
  if (deps.natsUrl === null) {
    return { bus: createLocalClusterBus(nodeId), registry: createSingleNodeRegistry(nodeId) };
  }
  const bus = createNatsClusterBus({
    url: deps.natsUrl,
    nodeId,
    keys: deps.busKeys,
    logger: deps.logger,
    onDropped: deps.onDropped,
  });
  const registry = createDbNodeRegistry({
    db: deps.db,
    clock: deps.clock,
    nodeId,
    logger: deps.logger,
    bus,
    ...(deps.leaseMs !== undefined ? { leaseMs: deps.leaseMs } : {}),
  });
  return { bus, registry };
}
