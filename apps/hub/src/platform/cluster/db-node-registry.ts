/**
 * The shared node registry (decision 0038): a lease per hub process in `cluster_nodes`, renewed every
 * `renewMs`. Each renewal also looks for leases that ran out: the process whose DELETE of such a row takes it
 * (one row affected) is the one that tells its `onNodeGone` listeners, so each gone node is reported once
 * across the cluster. A process leaving cleanly expires its own lease rather than deleting it, so its leaving
 * is reported the same way (once, by a survivor); with a cluster bus it also says so, and the others renew at
 * once instead of at their next tick.
 *
 * Each registration has an epoch (decision 0053): 1 at start, one more each time this process registers again.
 * Node ids are random per process start, so (node, epoch) never repeats and a counter of the process's own is
 * enough, on SQLite and PostgreSQL alike. A renewal extends the lease only while it has not expired; one that
 * finds it expired or taken registers again under the next epoch and tells its `onLeaseRegained` listeners,
 * which re-assert what the process still holds. `fence()` is the condition writers of owned state put in their
 * WHERE, so a write after the lease ran out (and before the next registration) changes nothing.
 */
import os from 'node:os';
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Clock } from '../clock.js';
import type { Database } from '../db/schema.js';
import type { Logger } from '../logger.js';
import type { ClusterBus } from './cluster-bus.js';
import type { LeaseRegainedListener, NodeGoneListener, NodeRegistry } from './node-registry.js';

/**
 * A condition to AND into a write about what a gone node held: true only while `nodeId` holds no
 * registration, so a node that registered again meanwhile (it had only stalled) keeps what it holds (decision
 * 0053). Built here, beside the table it reads.
 */
export function nodeUnregistered(nodeId: string): Expression<SqlBool> {
  return sql<SqlBool>`not exists (select 1 from cluster_nodes where node_id = ${nodeId})`;
}

/** A process's lease as `GET /hub/status` shows it. */
export interface NodeLeaseRow {
  node_id: string;
  epoch: number;
  started_at: string;
  lease_until: string;
}

/** The leases that hold at `now`, and `self`'s own whatever its state (a lost lease is worth seeing). */
export async function listNodeLeases(
  db: Kysely<Database>,
  now: string,
  self: string,
): Promise<NodeLeaseRow[]> {
  return db
    .selectFrom('cluster_nodes')
    .select(['node_id', 'epoch', 'started_at', 'lease_until'])
    .where((eb) => eb.or([eb('lease_until', '>=', now), eb('node_id', '=', self)]))
    .execute();
}

export interface DbNodeRegistryOptions {
  db: Kysely<Database>;
  clock: Clock;
  nodeId: string;
  logger: Logger;
  /** How long a lease lasts after a renewal (default 20 s, SVC_CLUSTER_LEASE_SECONDS). */
  leaseMs?: number;
  /** How often it is renewed (default a tenth of the lease). */
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
/** The default lease (decision 0053): outlasts the longest event-loop stalls measured under load (~8 s). */
export const defaultNodeLeaseMs = 20_000;

export function createDbNodeRegistry(options: DbNodeRegistryOptions): DbNodeRegistry {
  const { db, clock, nodeId, logger } = options;
  const leaseMs = options.leaseMs ?? defaultNodeLeaseMs;
  const renewMs = options.renewMs ?? Math.max(250, Math.floor(leaseMs / 10));
  if (renewMs >= leaseMs) throw new Error('the node lease must outlast the renewal interval');
  const listeners = new Set<NodeGoneListener>();
  const regainedListeners = new Set<LeaseRegainedListener>();
  let epoch = 0;
  /** Refused fenced writes since start, by kind. */
  const refusedWrites = new Map<string, number>();
  /** Kinds of refused writes already logged in the current epoch. */
  const refusedLogged = new Set<string>();
  let live: ReadonlySet<string> = new Set([nodeId]);
  /** The epoch of each live node's lease at the last renewal. */
  let liveEpochs: ReadonlyMap<string, number> = new Map();
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> = Promise.resolve();
  let started = false;
  let closed = false;
  let failing = false;
  let stopListening: (() => void) | null = null;

  const leaseEnd = () => new Date(clock.now().getTime() + leaseMs).toISOString();

  /**
   * Registers under the next epoch. A row of this node that is still there (a registration whose answer was
   * lost, or an expired lease no survivor removed yet) is this process's own and nothing acted on it: replaced.
   */
  async function register(): Promise<void> {
    const next = epoch + 1;
    const lease = leaseEnd();
    await db
      .insertInto('cluster_nodes')
      .values({
        node_id: nodeId,
        host_name: (options.hostName ?? os.hostname()).slice(0, 255),
        pid: options.pid ?? process.pid,
        started_at: clock.now().toISOString(),
        lease_until: lease,
        epoch: next,
      })
      .onConflict((oc) => oc.column('node_id').doUpdateSet({ lease_until: lease, epoch: next }))
      .execute();
    epoch = next;
    refusedLogged.clear();
  }

  async function tellRegained(): Promise<void> {
    for (const listener of [...regainedListeners]) {
      try {
        await listener(epoch);
      } catch (error) {
        logger.error({ err: error, epoch }, 're-asserting what this node holds failed');
      }
    }
  }

  async function tellGone(gone: string, goneEpoch: number): Promise<void> {
    logger.warn({ node: gone, epoch: goneEpoch }, 'cluster node gone');
    for (const listener of [...listeners]) {
      try {
        await listener(gone, goneEpoch);
      } catch (error) {
        logger.error({ err: error, node: gone }, 'a cluster node-gone listener failed');
      }
    }
  }

  async function renew(): Promise<void> {
    if (closed) return;
    const now = clock.now().toISOString();
    // Extended only while it holds: a lease that ran out may have been taken for gone by now.
    const renewed = await db
      .updateTable('cluster_nodes')
      .set({ lease_until: leaseEnd() })
      .where('node_id', '=', nodeId)
      .where('epoch', '=', epoch)
      .where('lease_until', '>=', now)
      .executeTakeFirst();
    if (Number(renewed.numUpdatedRows) === 0) {
      // A stall past the lease: the others may have released what it held; register again and re-assert it.
      const lost = epoch;
      await register();
      logger.warn(
        { node: nodeId, lost_epoch: lost, epoch },
        'this node’s lease had expired: registered again',
      );
      await tellRegained();
    }
    const rows = await db.selectFrom('cluster_nodes').select(['node_id', 'lease_until', 'epoch']).execute();
    const alive = new Set<string>([nodeId]);
    const epochs = new Map<string, number>([[nodeId, epoch]]);
    for (const row of rows) {
      if (row.node_id === nodeId) continue;
      if (row.lease_until >= now) {
        alive.add(row.node_id);
        epochs.set(row.node_id, row.epoch);
        continue;
      }
      const removed = await db
        .deleteFrom('cluster_nodes')
        .where('node_id', '=', row.node_id)
        .where('lease_until', '<', now)
        .executeTakeFirst();
      // Only the process whose delete took the row reports the node gone.
      if (Number(removed.numDeletedRows) === 1) await tellGone(row.node_id, row.epoch);
    }
    live = alive;
    liveEpochs = epochs;
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
    epoch: () => epoch,
    fence(of = epoch) {
      const at = clock.now().toISOString();
      return sql<SqlBool>`exists (select 1 from cluster_nodes where node_id = ${nodeId} and epoch = ${of} and lease_until >= ${at})`;
    },
    async holds(of = epoch) {
      const row = await db
        .selectFrom('cluster_nodes')
        .select('node_id')
        .where('node_id', '=', nodeId)
        .where('epoch', '=', of)
        .where('lease_until', '>=', clock.now().toISOString())
        .executeTakeFirst();
      return row !== undefined;
    },
    refused(what) {
      refusedWrites.set(what, (refusedWrites.get(what) ?? 0) + 1);
      if (refusedLogged.has(what)) return;
      refusedLogged.add(what);
      logger.warn(
        { node: nodeId, epoch, write: what },
        'a write about owned state was refused: this node’s lease had expired',
      );
    },
    refusedCount: () => [...refusedWrites.values()].reduce((sum, n) => sum + n, 0),
    refusedByKind: () => refusedWrites,
    onLeaseRegained(listener) {
      regainedListeners.add(listener);
      return () => {
        regainedListeners.delete(listener);
      };
    },
    liveNodes: () => live,
    isLive: (id) => live.has(id),
    epochOf: (id) => liveEpochs.get(id),
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
