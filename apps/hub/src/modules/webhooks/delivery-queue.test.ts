import { describe, expect, it } from 'vitest';
import { createDeliveryQueue, type AttemptResult, type DeliveryJob } from './delivery-queue.js';

type Outcome = { id: string; outcome: 'delivered' | 'dropped'; error: string | null; attempts: number };

function harness(
  attempt: (job: DeliveryJob, signal: AbortSignal) => Promise<AttemptResult>,
  maxPending = 100,
) {
  const finished: Outcome[] = [];
  const failures: string[] = [];
  const queue = createDeliveryQueue<DeliveryJob>({
    attempt,
    onAttemptFailed: (job, result) => failures.push(`${job.deliveryId}: ${result.error}`),
    onFinished: (job, outcome, detail) =>
      finished.push({ id: job.deliveryId, outcome, error: detail.error, attempts: job.attempts }),
    workers: 2,
    perWebhook: 1,
    maxPending,
    retryDelaysMs: [10, 10],
    attemptTimeoutMs: 200,
  });
  return { queue, finished, failures };
}

const job = (webhookId: string, n: number): DeliveryJob => ({
  deliveryId: `${webhookId}-${String(n)}`,
  webhookId,
  attempts: 0,
});

async function until(done: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !done(); i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
  expect(done()).toBe(true);
}

describe('delivery queue', () => {
  it('keeps other webhooks moving while one lane hangs until its timeout', async () => {
    const { queue, finished } = harness((j, signal) =>
      j.webhookId === 'slow'
        ? new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              resolve({ ok: false, status: null, error: 'timed out', retry: false });
            });
          })
        : Promise.resolve({ ok: true, status: 200 }),
    );
    for (let i = 0; i < 3; i += 1) queue.enqueue(job('slow', i));
    for (let i = 0; i < 20; i += 1) queue.enqueue(job('fast', i));
    await until(() => finished.filter((f) => f.outcome === 'delivered').length === 20);
    // One slow attempt at a time (perWebhook 1): the other two wait in their own lane.
    expect(queue.pendingFor('slow')).toBe(3);
    await until(() => finished.length === 23);
    expect(queue.pending()).toBe(0);
    await queue.close();
  });

  it('retries with its delays, then drops and counts', async () => {
    let calls = 0;
    const { queue, finished, failures } = harness(() => {
      calls += 1;
      return Promise.resolve({ ok: false, status: 500, error: 'receiver answered 500', retry: true });
    });
    queue.enqueue(job('w', 1));
    await until(() => finished.length === 1);
    expect(calls).toBe(3);
    expect(failures).toHaveLength(3);
    expect(finished).toEqual([
      { id: 'w-1', outcome: 'dropped', error: 'receiver answered 500', attempts: 3 },
    ]);
    await queue.close();
  });

  it('drops what does not fit, and what a removed webhook had queued', async () => {
    const { queue, finished } = harness(
      (_job, signal) =>
        new Promise<AttemptResult>((resolve) => {
          signal.addEventListener('abort', () => {
            resolve({ ok: false, status: null, error: 'aborted', retry: false });
          });
        }),
      3,
    );
    expect([1, 2, 3, 4].map((n) => queue.enqueue(job('w', n)))).toEqual([true, true, true, false]);
    expect(finished).toEqual([{ id: 'w-4', outcome: 'dropped', error: 'delivery queue full', attempts: 0 }]);
    queue.forget('w');
    expect(queue.pendingFor('w')).toBe(0);
    expect(queue.enqueue(job('v', 1))).toBe(true);
    await queue.close();
  });

  it('leaves an attempt cut short by close() unfinished and uncounted, and waits a delayed job', async () => {
    let started = 0;
    const { queue, finished, failures } = harness((_job, signal) => {
      started += 1;
      return new Promise<AttemptResult>((resolve) => {
        signal.addEventListener('abort', () => {
          resolve({ ok: false, status: null, error: 'aborted', retry: true });
        });
      });
    });
    queue.enqueue(job('w', 1));
    queue.enqueue(job('v', 1), 60_000);
    await until(() => started === 1);
    expect(queue.pending()).toBe(2);
    await queue.close();
    expect(started).toBe(1);
    expect(finished).toEqual([]);
    expect(failures).toEqual([]);
  });
});
