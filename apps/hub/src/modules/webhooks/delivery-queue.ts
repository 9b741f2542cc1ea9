/**
 * The webhook delivery queue: bounded in total, one lane per webhook, a fixed pool of workers. A lane runs at
 * most `perWebhook` attempts at once and workers take lanes in turn, so a receiver that hangs or fails holds
 * its own lane only: every other webhook keeps its pace. A failed attempt waits for its retry on a timer,
 * outside the pool. Best effort (spec section 6): a full queue drops the new delivery and counts it.
 */

export interface DeliveryJob {
  deliveryId: string;
  webhookId: string;
  /** Attempts made so far. */
  attempts: number;
}

export type AttemptResult =
  | { ok: true; status: number }
  /** `retry`: worth another attempt (network error, timeout, 5xx, 408, 429). */
  | { ok: false; status: number | null; error: string; retry: boolean };

export interface DeliveryQueueOptions<J extends DeliveryJob> {
  attempt(job: J, signal: AbortSignal): Promise<AttemptResult>;
  /** After each failed attempt (also the last one). */
  onAttemptFailed(job: J, result: Extract<AttemptResult, { ok: false }>): void;
  /** Once per job: delivered, or dropped after its last attempt (or refused a place in the queue). */
  onFinished(
    job: J,
    outcome: 'delivered' | 'dropped',
    detail: { status: number | null; error: string | null },
  ): void;
  workers: number;
  perWebhook: number;
  /** Jobs queued or waiting for a retry, across all webhooks. */
  maxPending: number;
  /** The delay before each retry; its length is the number of retries. */
  retryDelaysMs: readonly number[];
  /** The longest one attempt may take. */
  attemptTimeoutMs: number;
}

export interface DeliveryQueue<J extends DeliveryJob> {
  /** False (and the job dropped and counted) when the queue is full. */
  enqueue(job: J): boolean;
  /** Jobs of one webhook queued, in flight or waiting for a retry. */
  pendingFor(webhookId: string): number;
  pending(): number;
  /** Drops what a removed webhook still had queued (an attempt in flight ends on its own). */
  forget(webhookId: string): void;
  /** Drops the queue, aborts attempts in flight and waits for them. */
  close(): Promise<void>;
}

interface Lane<J> {
  queue: J[];
  active: number;
  /** In flight, queued or waiting for a retry. */
  pending: number;
}

export function createDeliveryQueue<J extends DeliveryJob>(
  options: DeliveryQueueOptions<J>,
): DeliveryQueue<J> {
  const lanes = new Map<string, Lane<J>>();
  /** Lane ids in the order workers visit them. */
  let order: string[] = [];
  let cursor = 0;
  let busyWorkers = 0;
  let total = 0;
  let closed = false;
  const timers = new Set<NodeJS.Timeout>();
  const inFlight = new Set<Promise<void>>();
  const closing = new AbortController();

  function laneOf(webhookId: string): Lane<J> {
    let lane = lanes.get(webhookId);
    if (!lane) {
      lane = { queue: [], active: 0, pending: 0 };
      lanes.set(webhookId, lane);
      order.push(webhookId);
    }
    return lane;
  }

  function release(job: J): void {
    const lane = lanes.get(job.webhookId);
    total -= 1;
    if (!lane) return;
    lane.pending -= 1;
    if (lane.pending === 0) {
      lanes.delete(job.webhookId);
      order = order.filter((id) => id !== job.webhookId);
    }
  }

  /** The next lane with work and room, after the last one served. */
  function nextJob(): J | null {
    for (let step = 0; step < order.length; step += 1) {
      const index = (cursor + step) % order.length;
      const lane = lanes.get(order[index] as string);
      if (lane && lane.queue.length > 0 && lane.active < options.perWebhook) {
        cursor = index + 1;
        const job = lane.queue.shift() as J;
        lane.active += 1;
        return job;
      }
    }
    return null;
  }

  function pump(): void {
    while (!closed && busyWorkers < options.workers) {
      const job = nextJob();
      if (!job) return;
      busyWorkers += 1;
      const running = run(job).finally(() => {
        inFlight.delete(running);
        busyWorkers -= 1;
        pump();
      });
      inFlight.add(running);
    }
  }

  async function run(job: J): Promise<void> {
    job.attempts += 1;
    let result: AttemptResult;
    try {
      const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(options.attemptTimeoutMs)]);
      result = await options.attempt(job, signal);
    } catch (error) {
      result = {
        ok: false,
        status: null,
        error: error instanceof Error ? error.message : String(error),
        retry: true,
      };
    }
    const lane = lanes.get(job.webhookId);
    if (lane) lane.active -= 1;
    if (result.ok) {
      release(job);
      options.onFinished(job, 'delivered', { status: result.status, error: null });
      return;
    }
    options.onAttemptFailed(job, result);
    const delay = options.retryDelaysMs[job.attempts - 1];
    if (!result.retry || delay === undefined || closed || !lane) {
      release(job);
      options.onFinished(job, 'dropped', { status: result.status, error: result.error });
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      const current = lanes.get(job.webhookId);
      if (closed || !current) return;
      current.queue.push(job);
      pump();
    }, delay);
    timer.unref();
    timers.add(timer);
  }

  return {
    enqueue(job) {
      if (closed || total >= options.maxPending) {
        options.onFinished(job, 'dropped', { status: null, error: 'delivery queue full' });
        return false;
      }
      const lane = laneOf(job.webhookId);
      lane.queue.push(job);
      lane.pending += 1;
      total += 1;
      pump();
      return true;
    },
    pendingFor: (webhookId) => lanes.get(webhookId)?.pending ?? 0,
    pending: () => total,
    forget(webhookId) {
      const lane = lanes.get(webhookId);
      if (!lane) return;
      total -= lane.pending - lane.active;
      lanes.delete(webhookId);
      order = order.filter((id) => id !== webhookId);
    },
    async close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      lanes.clear();
      order = [];
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
