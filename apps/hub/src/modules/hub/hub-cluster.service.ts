import type { Kysely } from 'kysely';
import type { ClusterProcess, ClusterStatus, Readiness } from '@svc/protocol';
import type { Clock } from '../../platform/clock.js';
import type { ClusterBus } from '../../platform/cluster/cluster-bus.js';
import type { NodeRegistry } from '../../platform/cluster/node-registry.js';
import { listNodeLeases, type NodeLeaseRow } from '../../platform/cluster/db-node-registry.js';
import type { Database } from '../../platform/db/schema.js';
import type { AssetService } from '../assets/assets.service.js';

export interface HubClusterDeps {
  db: Kysely<Database>;
  assets: Pick<AssetService, 'onlineAgentsByNode'>;
  clock: Clock;
  bus: Pick<ClusterBus, 'nodeId' | 'shared' | 'status'>;
  registry: Pick<NodeRegistry, 'liveNodes' | 'epoch'>;
  /** `/readyz`'s answer: `degraded` here means what it means there. */
  readiness: () => Promise<Readiness>;
  /** This process's own agents, said when the database cannot be read. */
  connectedAgents: () => number;
}

/** How long a bus error's text may be in the answer (the log has all of it). */
const reasonChars = 300;

/**
 * The cluster as this process sees it: its bus, and the live processes. A process is live when its lease holds
 * in `cluster_nodes` or the registry counted it live at its last renewal (a registry without rows, such as the
 * embedded cluster of one, lists the processes it knows); this process is always listed, with its own lease even
 * when that ran out.
 */
export function createHubClusterService(deps: HubClusterDeps) {
  const self = deps.bus.nodeId;

  async function readProcesses(now: Date): Promise<ClusterProcess[]> {
    const [leases, agents] = await Promise.all([
      listNodeLeases(deps.db, now.toISOString(), self),
      deps.assets.onlineAgentsByNode(),
    ]);
    const byId = new Map<string, NodeLeaseRow>(leases.map((row) => [row.node_id, row]));
    const ids = new Set([self, ...deps.registry.liveNodes(), ...byId.keys()]);
    return [...ids].map((id) => {
      const row = byId.get(id);
      return {
        node_id: id,
        epoch: row?.epoch ?? (id === self ? deps.registry.epoch() : 0),
        started_at: row?.started_at ?? null,
        lease_expires_at: row?.lease_until ?? null,
        agents: agents.get(id) ?? 0,
        this_process: id === self,
      };
    });
  }

  return {
    async status(): Promise<ClusterStatus> {
      const bus = deps.bus.status();
      const nats = !deps.bus.shared ? 'none' : bus.connected ? 'up' : 'down';
      const [readiness, processes] = await Promise.all([
        deps.readiness(),
        // Without the database only this process is known; the hub's status says `degraded` for it already.
        readProcesses(deps.clock.now()).catch((): ClusterProcess[] => [
          {
            node_id: self,
            epoch: deps.registry.epoch(),
            started_at: null,
            lease_expires_at: null,
            agents: deps.connectedAgents(),
            this_process: true,
          },
        ]),
      ]);
      return {
        node_id: self,
        nats,
        nats_reason: nats === 'down' ? (bus.reason ?? 'disconnected').slice(0, reasonChars) : null,
        degraded: readiness.status === 'degraded',
        processes: processes.sort(byStart),
      };
    },
  };
}

/** By registration, those without a lease row last, then by id: a stable order across refreshes. */
function byStart(a: ClusterProcess, b: ClusterProcess): number {
  // ISO 8601 UTC timestamps compare as text; '~' sorts after every digit.
  const key = (p: ClusterProcess) => `${p.started_at ?? '~'} ${p.node_id}`;
  const [x, y] = [key(a), key(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}

export type HubClusterService = ReturnType<typeof createHubClusterService>;
