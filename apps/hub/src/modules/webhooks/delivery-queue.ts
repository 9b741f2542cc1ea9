/**
 * The webhook delivery queue: bounded in total, one lane per webhook, a fixed pool of workers. A lane runs at
 * most `perWebhook` attempts at once and workers take lanes in turn, so a receiver that hangs or fails holds
 * its own lane only: every other webhook keeps its pace. A failed attempt waits for its retry on a timer,
 * outside the pool. A full queue drops the new delivery and counts it. Closing the queue interrupts attempts
 * in flight without finishing their jobs: the service keeps those (and everything queued) for the next start.
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
  /**
   * After each failed attempt (also the last one); `retryInMs` is the wait before the next attempt, null when
   * there is none. An attempt cut short by close() is not a failure: it is not reported.
   */
  onAttemptFailed(job: J, result: Extract<AttemptResult, { ok: false }>, retryInMs: number | null): void;
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
  /**
   * False (and the job dropped and counted) when the queue is full. `delayMs`: the job waits that long before
   * its next attempt (a retry reloaded at start).
   */
  enqueue(job: J, delayMs?: number): boolean;
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

  /** Puts the job in its lane now, or after `delay` on a timer outside the pool. */
  function schedule(job: J, delay: number): void {
    if (delay <= 0) {
      laneOf(job.webhookId).queue.push(job);
      pump();
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
    if (closed) {
      // Cut short by close(): not counted, the job stays for the next start.
      job.attempts -= 1;
      return;
    }
    const delay = options.retryDelaysMs[job.attempts - 1];
    const retries = result.retry && delay !== undefined && lane !== undefined;
    options.onAttemptFailed(job, result, retries ? delay : null);
    if (!retries) {
      release(job);
      options.onFinished(job, 'dropped', { status: result.status, error: result.error });
      return;
    }
    schedule(job, delay);
  }

  return {
    enqueue(job, delayMs = 0) {
      if (closed || total >= options.maxPending) {
        options.onFinished(job, 'dropped', { status: null, error: 'delivery queue full' });
        return false;
      }
      laneOf(job.webhookId).pending += 1;
      total += 1;
      schedule(job, delayMs);
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
