import { describe, expect, it } from 'vitest';
import { BoundedWorkQueue } from './bounded-work-queue.js';

/** A task that runs until the test lets it finish. */
function heldTask(log: string[], name: string) {
  let finish: (value: string) => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const task = () => {
    log.push(`start ${name}`);
    return new Promise<string>((resolve, reject) => {
      finish = resolve;
      fail = reject;
    });
  };
  return {
    task,
    finish: (value = name) => {
      finish(value);
    },
    fail: (error: Error) => {
      fail(error);
    },
  };
}

/** Lets every pending promise callback run. */
const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('BoundedWorkQueue', () => {
  it('runs 2, lines up 8 and turns the 11th away without starting it', async () => {
    const log: string[] = [];
    const queue = new BoundedWorkQueue(2, 8);
    const tasks = Array.from({ length: 11 }, (_, i) => heldTask(log, `t${i}`));
    const started = tasks.map((t) => queue.tryRun(t.task));
    await settle();

    expect(started.filter((p) => p === null)).toHaveLength(1);
    expect(started[10]).toBeNull();
    expect(log).toEqual(['start t0', 'start t1']);
    expect(queue.size).toBe(10);
  });

  it('hands a finished slot to the next in line, in order, so a newcomer cannot jump the line', async () => {
    const log: string[] = [];
    const queue = new BoundedWorkQueue(1, 2);
    const [a, b, c] = [heldTask(log, 'a'), heldTask(log, 'b'), heldTask(log, 'c')];
    const results = [queue.tryRun(a.task), queue.tryRun(b.task), queue.tryRun(c.task)];
    await settle();
    a.finish();
    expect(await results[0]).toBe('a');
    // a's slot went to b: a newcomer now finds the queue still full (b running, c waiting)…
    expect(queue.size).toBe(2);
    await settle();
    expect(log).toEqual(['start a', 'start b']);
    b.finish();
    await results[1];
    await settle();
    expect(log).toEqual(['start a', 'start b', 'start c']);
    c.finish();
    expect(await results[2]).toBe('c');
    expect(queue.size).toBe(0);
  });

  it('keeps reserved places for priority callers, who go first, and only for them', async () => {
    const log: string[] = [];
    const queue = new BoundedWorkQueue(1, 1, 1);
    const [running, waiting, vip, late] = ['running', 'waiting', 'vip', 'late'].map((n) => heldTask(log, n));
    if (!running || !waiting || !vip || !late) throw new Error('tasks');
    const results = [queue.tryRun(running.task), queue.tryRun(waiting.task)];
    expect(queue.tryRun(late.task)).toBeNull(); // ordinary places full
    results.push(queue.tryRun(vip.task, true)); // the reserved one
    expect(queue.tryRun(heldTask(log, 'second vip').task, true)).toBeNull(); // reserved full too
    expect(queue.size).toBe(3);

    running.finish();
    await results[0];
    await settle();
    expect(log).toEqual(['start running', 'start vip']);
    vip.finish();
    await results[2];
    await settle();
    expect(log).toEqual(['start running', 'start vip', 'start waiting']);
    waiting.finish();
    await results[1];
    expect(queue.size).toBe(0);
  });

  it('frees the slot of a task that fails, and passes the failure to its caller', async () => {
    const log: string[] = [];
    const queue = new BoundedWorkQueue(1, 0);
    const failing = heldTask(log, 'failing');
    const result = queue.tryRun(failing.task);
    expect(queue.tryRun(heldTask(log, 'refused').task)).toBeNull();
    failing.fail(new Error('boom'));
    await expect(result).rejects.toThrow('boom');
    expect(queue.size).toBe(0);
    const next = heldTask(log, 'next');
    const accepted = queue.tryRun(next.task);
    expect(accepted).not.toBeNull();
    next.finish();
    expect(await accepted).toBe('next');
  });

  it('frees the slot of a task that throws before returning a promise', async () => {
    const queue = new BoundedWorkQueue(1, 0);
    const result = queue.tryRun(() => {
      throw new Error('sync');
    });
    await expect(result).rejects.toThrow('sync');
    expect(queue.size).toBe(0);
  });
});
