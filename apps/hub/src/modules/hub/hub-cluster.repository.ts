/** What `GET /hub/status` reads of the cluster: the node leases (decision 0053) and who holds which agent. */
import type { Executor } from '../../platform/db/schema.js';

export interface NodeLeaseRow {
  node_id: string;
  epoch: number;
  started_at: string;
  lease_until: string;
}

/** The leases that hold at `now`, and `self`'s own whatever its state (a lost lease is worth seeing). */
export async function listNodeLeases(db: Executor, now: string, self: string): Promise<NodeLeaseRow[]> {
  return db
    .selectFrom('cluster_nodes')
    .select(['node_id', 'epoch', 'started_at', 'lease_until'])
    .where((eb) => eb.or([eb('lease_until', '>=', now), eb('node_id', '=', self)]))
    .execute();
}

/** Online agents by the node that marked them online (assets.agent_node, decision 0039). */
export async function countOnlineAgentsByNode(db: Executor): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('assets')
    .select(['agent_node', (eb) => eb.fn.countAll<string | number>().as('n')])
    .where('status', '=', 'online')
    .where('agent_node', 'is not', null)
    .groupBy('agent_node')
    .execute();
  return new Map(rows.flatMap((r) => (r.agent_node ? [[r.agent_node, Number(r.n)] as const] : [])));
}
