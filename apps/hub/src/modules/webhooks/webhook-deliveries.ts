import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import { newId, webhookLimits } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { HubEvent } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import {
  createDeliveryQueue,
  type DeliveryJob,
  type DeliveryQueue,
  type DeliveryQueueOptions,
} from './delivery-queue.js';
import { attemptDelivery, deliveryBody, type SignedDelivery } from './webhook-delivery.js';
import type { Target, WebhookTargets } from './webhook-targets.js';
import {
  insertPending,
  recordDelivery,
  recordFailedAttempt,
  updatePending,
  type PendingDeliveryRow,
} from './webhooks.repository.js';

export interface Job extends DeliveryJob, SignedDelivery {
  eventId: string;
  createdAt: string;
  /** The job's writes to its pending row, in order (insert, attempts, removal). */
  writes: Promise<void>;
}

type Detail = { status: number | null; error: string | null };

/** The delivery side: the queue, its callbacks, and the pending and finished rows its jobs write. */
export interface WebhookDeliveries {
  queue: DeliveryQueue<Job>;
  /** A new job for the target, or null (recorded as dropped) when the event's data is above the limit. */
  newJob(target: Target, type: string, eventId: string, ts: string, data: unknown): Job | null;
  /** Records the delivery as finished and lets it go. */
  finish(job: Job, outcome: 'delivered' | 'dropped', detail: Detail): void;
  /** Writes happen after the fact; a failure is logged, never thrown into the queue. */
  track(work: Promise<void>, what: string): void;
  /** Queues the event for every enabled target whose filter takes it; while closing, only keeps it. */
  queueEvent(event: HubEvent, closing: boolean): void;
  /** Until every write started so far has landed. */
  settleWrites(): Promise<void>;
}

/** A pending row read back (a restart or a take-over) as a job to queue again. */
export function jobOfPending(row: PendingDeliveryRow): Job {
  return {
    deliveryId: row.id,
    webhookId: row.webhook_id,
    attempts: row.attempts,
    id: row.id,
    type: row.event_type,
    ts: row.ts,
    body: row.body,
    eventId: row.event_id,
    createdAt: row.created_at,
    writes: Promise.resolve(),
  };
}

export function createWebhookDeliveries(deps: {
  db: Kysely<Database>;
  clock: Clock;
  outbound: LiveOutbound;
  logger: Logger;
  telemetry?: Pick<Telemetry, 'webhookDelivery'> | undefined;
  options: Omit<DeliveryQueueOptions<Job>, 'attempt' | 'onAttemptFailed' | 'onFinished'>;
  targets: WebhookTargets;
  /** Deliveries this process holds: a finished one is let go. */
  held: Map<string, string>;
  nodeId: string;
  claimExpiry(): string;
}): WebhookDeliveries {
  const { db, clock, outbound, logger, targets, held } = deps;
  /** Writes not finished yet: close() waits for them before the database closes. */
  const writing = new Set<Promise<void>>();

  function track(work: Promise<void>, what: string): void {
    const settled = work.catch((error: unknown) => {
      logger.error({ err: error }, `webhooks: ${what} failed`);
    });
    writing.add(settled);
    void settled.finally(() => writing.delete(settled));
  }

  /** A write to the job's pending row, after the ones before it (an insert may still be on its way). */
  function persist(job: Job, write: () => Promise<void>, what: string): void {
    job.writes = job.writes.then(write).catch((error: unknown) => {
      logger.error({ err: error }, `webhooks: ${what} failed`);
    });
    track(job.writes, what);
  }

  function finish(job: Job, outcome: 'delivered' | 'dropped', detail: Detail): void {
    held.delete(job.deliveryId);
    const record = {
      id: job.deliveryId,
      webhook_id: job.webhookId,
      event_id: job.eventId,
      event_type: job.type,
      outcome,
      attempts: job.attempts,
      http_status: detail.status,
      error: detail.error,
      created_at: job.createdAt,
      finished_at: clock.now().toISOString(),
    };
    persist(
      job,
      () => db.transaction().execute((trx) => recordDelivery(trx, record)),
      'recording a delivery',
    );
  }

  const pendingRow = (job: Job, nextAttemptAt: string): PendingDeliveryRow => ({
    id: job.deliveryId,
    webhook_id: job.webhookId,
    event_id: job.eventId,
    event_type: job.type,
    ts: job.ts,
    body: job.body,
    attempts: job.attempts,
    next_attempt_at: nextAttemptAt,
    created_at: job.createdAt,
    claimed_by: deps.nodeId,
    claim_expires_at: deps.claimExpiry(),
  });

  const queue: DeliveryQueue<Job> = createDeliveryQueue<Job>({
    ...deps.options,
    attempt: (job, signal) => {
      const target = targets.get(job.webhookId);
      if (!target)
        return Promise.resolve({ ok: false, status: null, error: 'webhook removed', retry: false });
      return attemptDelivery(outbound.client(), target, job, signal).then((result) => {
        deps.telemetry?.webhookDelivery(result.ok ? 'delivered' : 'failed');
        return result;
      });
    },
    onAttemptFailed: (job, result, retryInMs) => {
      const now = clock.now();
      track(recordFailedAttempt(db, job.webhookId, result.error, now.toISOString()), 'counting a failure');
      if (retryInMs === null) return;
      const next = {
        attempts: job.attempts,
        next_attempt_at: new Date(now.getTime() + retryInMs).toISOString(),
      };
      persist(job, () => updatePending(db, job.deliveryId, next), 'keeping a retry');
    },
    onFinished: finish,
  });

  function newJob(target: Target, type: string, eventId: string, ts: string, data: unknown): Job | null {
    const deliveryId = newId('webhookDelivery');
    const body = deliveryBody(deliveryId, type, ts, data);
    const job: Job = {
      deliveryId,
      webhookId: target.id,
      attempts: 0,
      id: deliveryId,
      type,
      ts,
      body,
      eventId,
      createdAt: clock.now().toISOString(),
      writes: Promise.resolve(),
    };
    if (Buffer.byteLength(JSON.stringify(data)) > webhookLimits.dataBytes) {
      finish(job, 'dropped', { status: null, error: 'event data above 256 KiB' });
      return null;
    }
    return job;
  }

  function queueEvent(event: HubEvent, closing: boolean): void {
    for (const target of targets.values()) {
      if (!target.enabled || (target.events !== null && !target.events.has(event.type))) continue;
      const job = newJob(target, event.type, event.id, event.ts, event.data);
      if (!job) continue;
      const row = pendingRow(job, job.createdAt);
      // While the hub stops, a new delivery is only kept: the next start sends it.
      if (!closing) held.set(job.deliveryId, job.webhookId);
      if (closing || queue.enqueue(job))
        persist(job, () => insertPending(db, row), 'keeping a pending delivery');
    }
  }

  return {
    queue,
    newJob,
    finish,
    track,
    queueEvent,
    async settleWrites() {
      while (writing.size > 0) await Promise.allSettled([...writing]);
    },
  };
}
