import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { NodeLease } from '../../platform/cluster/node-registry.js';
import type { DeliveryQueue } from './delivery-queue.js';
import { jobOfPending, type Job } from './webhook-deliveries.js';
import {
  listPending,
  releaseClaims,
  renewClaims,
  takeOverPending,
  type PendingDeliveryRow,
} from './webhooks.repository.js';

/**
 * This process in the cluster (decision 0040): each pending delivery is claimed by the node that queued it,
 * renewed while it holds it, and taken over only when the claim expired or its node is gone.
 */
export interface WebhookCluster {
  nodeId: string;
  /** False for a cluster of one: a start takes every pending delivery, as before claims existed. */
  shared: boolean;
  liveNodes(): ReadonlySet<string>;
  /** This process's lease (decision 0053): claims are taken and renewed only while it holds. */
  lease?: NodeLease;
}

/** This process's claims on pending deliveries in the cluster (decision 0040). */
export interface WebhookClaims {
  /** Claims what no process holds and queues it here; how many were taken. */
  takeOver(): Promise<number>;
  /** Renews and takes over on a timer, in a shared cluster only. */
  start(track: (work: Promise<void>, what: string) => void): void;
  /** Stops the timer. */
  stop(): void;
  /** Hands this process's claims back, so the next process to start (or sweep) sends them at once. */
  release(): Promise<void>;
}

export function createWebhookClaims(deps: {
  db: Kysely<Database>;
  clock: Clock;
  cluster: WebhookCluster;
  lease: NodeLease;
  claimTtlMs: number;
  claimExpiry(): string;
  /** Deliveries this process holds (queued, in flight or waiting for a retry): never taken over twice. */
  held: Map<string, string>;
  queue: Pick<DeliveryQueue<Job>, 'enqueue'>;
  isClosing(): boolean;
}): WebhookClaims {
  const { db, clock, cluster, lease, held, queue } = deps;
  let claimTimer: NodeJS.Timeout | null = null;

  /** A pending row no process holds now: never claimed, claim expired, holder gone, or a cluster of one. */
  function isClaimable(row: PendingDeliveryRow, nowIso: string, live: ReadonlySet<string>): boolean {
    if (held.has(row.id)) return false;
    if (!cluster.shared || row.claimed_by === null || row.claim_expires_at === null) return true;
    if (row.claimed_by === cluster.nodeId) return false;
    return row.claim_expires_at < nowIso || !live.has(row.claimed_by);
  }

  /**
   * Pending deliveries no process holds go (back) into this process's queue, oldest first, each at its next
   * attempt time, once claimed here; rows beyond the queue's bound are dropped and counted like a full queue's.
   * At start that is what a clean stop left pending (and, in a cluster, what dead processes left).
   */
  async function takeOver(): Promise<number> {
    const batch = 500;
    let after: PendingDeliveryRow | null = null;
    let taken = 0;
    for (;;) {
      const nowIso = clock.now().toISOString();
      const live = cluster.liveNodes();
      const rows: PendingDeliveryRow[] = await listPending(
        db,
        after,
        batch,
        cluster.shared ? { nowIso, live: [...live] } : undefined,
      );
      after = rows.at(-1) ?? null;
      // The page's rows claimed first, then queued at once: the queue's bound applies to the page as a whole.
      const claimed: PendingDeliveryRow[] = [];
      for (const row of rows) {
        if (deps.isClosing() || !isClaimable(row, nowIso, live)) continue;
        if (await takeOverPending(db, row, cluster.nodeId, deps.claimExpiry(), lease.fence()))
          claimed.push(row);
      }
      // Stopping meanwhile: what was claimed stays in its rows, handed back by close().
      if (deps.isClosing()) return taken;
      for (const row of claimed) {
        const job = jobOfPending(row);
        taken += 1;
        const delay = Date.parse(row.next_attempt_at) - clock.now().getTime();
        held.set(job.deliveryId, job.webhookId);
        if (!queue.enqueue(job, Math.max(0, delay))) held.delete(job.deliveryId);
      }
      if (rows.length < batch) return taken;
    }
  }

  /** Renews this node's claims, then takes over those that expired (a process died unseen). */
  async function keepClaims(): Promise<void> {
    await renewClaims(db, cluster.nodeId, deps.claimExpiry(), lease.fence());
    await takeOver();
  }

  return {
    takeOver,
    start(track) {
      if (!cluster.shared) return;
      claimTimer = setInterval(
        () => {
          track(keepClaims(), 'keeping webhook delivery claims');
        },
        Math.max(1, Math.floor(deps.claimTtlMs / 3)),
      );
      claimTimer.unref();
    },
    stop() {
      if (claimTimer) clearInterval(claimTimer);
    },
    async release() {
      if (cluster.shared) await releaseClaims(db, cluster.nodeId);
    },
  };
}
