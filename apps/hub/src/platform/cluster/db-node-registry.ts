/**
 * The shared node registry (decision 0038): a lease per hub process in `cluster_nodes`, renewed every
 * `renewMs`. Each renewal also looks for leases that ran out: the process whose DELETE of such a row takes it
 * (one row affected) is the one that tells its `onNodeGone` listeners, so each gone node is reported once
 * across the cluster. A process leaving cleanly expires its own lease rather than deleting it, so its leaving
 * is reported the same way (once, by a survivor); with a cluster bus it also says so, and the others renew at
 * once instead of at their next tick.
 */
import os from 'node:os';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { ClusterBus } from './cluster-bus.js';
import type { NodeGoneListener, NodeRegistry } from './node-registry.js';

export interface DbNodeRegistryOptions {
  db: Kysely<Database>;
  clock: Clock;
  nodeId: string;
  logger: Logger;
  leaseMs?: number;
  renewMs?: number;
  /** Where to say this node leaves (optional: the others notice at their next renewal anyway). */
  bus?: ClusterBus;
  hostName?: string;
  pid?: number;
}

export interface DbNodeRegistry extends NodeRegistry {
  /** One renewal now (the timer runs them every renewMs; tests with a fake clock call it). */
  renewNow(): Promise<void>;
}

/** Subject on which a node says it leaves. */
const nodeLeftSubject = 'svc.cluster.left';
/** An expired lease: what a node leaving cleanly writes as its lease's end. */
const longAgo = new Date(0).toISOString();

export function createDbNodeRegistry(options: DbNodeRegistryOptions): DbNodeRegistry {
  const { db, clock, nodeId, logger } = options;
  const leaseMs = options.leaseMs ?? 15_000;
  const renewMs = options.renewMs ?? 5_000;
  if (renewMs >= leaseMs) throw new Error('the node lease must outlast the renewal interval');
  const listeners = new Set<NodeGoneListener>();
  let live: ReadonlySet<string> = new Set([nodeId]);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let started = false;
  let closed = false;
  let failing = false;
  let stopListening: (() => void) | null = null;

  const leaseEnd = () => new Date(clock.now().getTime() + leaseMs).toISOString();

  async function register(): Promise<void> {
    await db
      .insertInto('cluster_nodes')
      .values({
        node_id: nodeId,
        host_name: (options.hostName ?? os.hostname()).slice(0, 255),
        pid: options.pid ?? process.pid,
        started_at: clock.now().toISOString(),
        lease_until: leaseEnd(),
      })
      .execute();
  }

  async function tellGone(gone: string): Promise<void> {
    logger.warn({ node: gone }, 'cluster node gone');
    for (const listener of [...listeners]) {
      try {
        await listener(gone);
      } catch (error) {
        logger.error({ err: error, node: gone }, 'a cluster node-gone listener failed');
      }
    }
  }

  async function renew(): Promise<void> {
    if (closed) return;
    const renewed = await db
      .updateTable('cluster_nodes')
      .set({ lease_until: leaseEnd() })
      .where('node_id', '=', nodeId)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) === 0) {
      // Taken for gone (a pause longer than the lease): what it held has been released; register again.
      logger.warn({ node: nodeId }, 'this node’s lease had expired: registering again');
      await register();
    }
    const now = clock.now().toISOString();
    const rows = await db.selectFrom('cluster_nodes').select(['node_id', 'lease_until']).execute();
    const alive = new Set<string>([nodeId]);
    for (const row of rows) {
      if (row.node_id === nodeId) continue;
      if (row.lease_until >= now) {
        alive.add(row.node_id);
        continue;
      }
      const removed = await db
        .deleteFrom('cluster_nodes')
        .where('node_id', '=', row.node_id)
        .where('lease_until', '<', now)
        .executeTakeFirst();
      // Only the process whose delete took the row reports the node gone.
      if (Number(removed.numDeletedRows) === 1) await tellGone(row.node_id);
    }
    live = alive;
  }

  /** Renewals run one at a time; a failed one is logged once per change and retried at the next tick. */
  function renewNow(): Promise<void> {
    running = running.then(async () => {
      try {
        await renew();
        if (failing) logger.info('cluster node lease renewed again');
        failing = false;
      } catch (error) {
        if (!failing) logger.error({ err: error }, 'cluster node lease renewal failed');
        failing = true;
      }
    });
    return running;
  }

  return {
    nodeId,
    liveNodes: () => live,
    isLive: (id) => live.has(id),
    onNodeGone(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
    renewNow,
    async start() {
      if (started) return;
      started = true;
      await register();
      await renewNow();
      stopListening =
        options.bus?.subscribe(nodeLeftSubject, () => {
          void renewNow();
        }) ?? null;
      timer = setInterval(() => {
        void renewNow();
      }, renewMs);
      timer.unref();
    },
    async close() {
      if (closed || !started) return;
      if (timer) clearInterval(timer);
      timer = null;
      stopListening?.();
      await running;
      closed = true;
      try {
        // Expired rather than deleted: a survivor's renewal removes it and reports it gone, once.
        await db
          .updateTable('cluster_nodes')
          .set({ lease_until: longAgo })
          .where('node_id', '=', nodeId)
          .execute();
        options.bus?.publish(nodeLeftSubject, { node: nodeId });
      } catch (error) {
        logger.error({ err: error }, 'cluster node lease not released (it expires by itself)');
      }
    },
  };
}
