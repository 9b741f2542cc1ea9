import { describe, expect, it } from 'vitest';
import { ManualClock } from './clock.js';
import { createRetentionRunner, type RetentionTask } from './retention.js';

const dayMs = 24 * 60 * 60 * 1000;
const now = new Date('2026-11-25T12:00:00.000Z');

/** A task over an in-memory table of timestamps; records each batch's size and cutoff. */
function memoryTask(name: string, stamps: string[], days: () => number) {
  const batches: { cutoff: string; deleted: number }[] = [];
  const task: RetentionTask = {
    name,
    days,
    purgeBatch(cutoff, limit) {
      const old = stamps.filter((ts) => ts < cutoff).slice(0, limit);
      for (const ts of old) stamps.splice(stamps.indexOf(ts), 1);
      batches.push({ cutoff, deleted: old.length });
      return Promise.resolve(old.length);
    },
  };
  return { task, batches, stamps };
}

function stampsDaysAgo(count: number, daysAgo: number): string[] {
  return Array.from({ length: count }, (_, i) => new Date(now.getTime() - daysAgo * dayMs - i).toISOString());
}

describe('retention runner: bounded batches, windows read at each run', () => {
  it('deletes only what is older than the window, in batches of at most batchSize, yielding between them', async () => {
    const clock = new ManualClock(now);
    const table = memoryTask('audit_events', [...stampsDaysAgo(2500, 40), ...stampsDaysAgo(10, 5)], () => 30);
    const runner = createRetentionRunner({ clock, tasks: [table.task], batchSize: 1000 });
    // Other work gets the event loop between batches: an immediate queued beside the run keeps running.
    let interleaved = 0;
    let done = false;
    const tick = () => {
      interleaved += 1;
      if (!done) setImmediate(tick);
    };
    setImmediate(tick);
    const result = await runner.runOnce();
    done = true;
    expect(result.deleted).toEqual({ audit_events: 2500 });
    expect(table.batches.map((b) => b.deleted)).toEqual([1000, 1000, 500]);
    expect(table.batches[0]?.cutoff).toBe(new Date(now.getTime() - 30 * dayMs).toISOString());
    expect(table.stamps).toHaveLength(10);
    expect(interleaved).toBeGreaterThanOrEqual(2);
    await runner.close();
  });

  it('a changed window applies at the next run; the clock moving on ages records out', async () => {
    const clock = new ManualClock(now);
    let days = 30;
    const table = memoryTask('audit_events', stampsDaysAgo(5, 10), () => days);
    const runner = createRetentionRunner({ clock, tasks: [table.task] });
    expect((await runner.runOnce()).deleted.audit_events).toBe(0);
    days = 7;
    expect((await runner.runOnce()).deleted.audit_events).toBe(5);
    table.stamps.push(...stampsDaysAgo(3, 0));
    clock.advance(8 * dayMs);
    expect((await runner.runOnce()).deleted.audit_events).toBe(3);
  });

  it('a backlog larger than a run allows is worked off over several runs', async () => {
    const clock = new ManualClock(now);
    const table = memoryTask('t', stampsDaysAgo(50, 40), () => 1);
    const runner = createRetentionRunner({ clock, tasks: [table.task], batchSize: 10, maxBatchesPerRun: 2 });
    expect((await runner.runOnce()).deleted.t).toBe(20);
    expect((await runner.runOnce()).deleted.t).toBe(20);
    expect((await runner.runOnce()).deleted.t).toBe(10);
  });

  it('a failing task is reported and the next one still runs; concurrent runs are one run', async () => {
    const clock = new ManualClock(now);
    const errors: string[] = [];
    const failing: RetentionTask = {
      name: 'broken',
      days: () => 1,
      purgeBatch: () => Promise.reject(new Error('disk on fire')),
    };
    const table = memoryTask('ok', stampsDaysAgo(3, 40), () => 1);
    const runner = createRetentionRunner({
      clock,
      tasks: [failing, table.task],
      onError: (task) => errors.push(task),
    });
    const [a, b] = await Promise.all([runner.runOnce(), runner.runOnce()]);
    expect(a).toBe(b);
    expect(errors).toEqual(['broken']);
    expect(a.deleted).toEqual({ ok: 3 });
  });
});
