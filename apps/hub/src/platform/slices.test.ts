import { describe, expect, it } from 'vitest';
import { eachInSlices } from './slices.js';

describe('fan-out slices', () => {
  it('lets the event loop run between slices: other work is not held until every target is started', async () => {
    const started: number[] = [];
    const turns: number[] = [];
    // Something else the process has to do (a heartbeat, another request): it runs as soon as the loop turns.
    const other = setInterval(() => turns.push(started.length), 0);
    await eachInSlices(1000, 10_000, 100, async (i) => {
      started.push(i);
      // Each start costs CPU (a frame serialised and encrypted): a slice outlasts the timer's period.
      const until = performance.now() + 0.1;
      while (performance.now() < until) {
        // busy
      }
      await new Promise((r) => setTimeout(r, 5));
    });
    clearInterval(other);

    expect(started).toEqual(Array.from({ length: 1000 }, (_, i) => i));
    // The other work ran while targets were still being started, never after more than one slice.
    const during = turns.filter((n) => n < 1000);
    expect(during.length).toBeGreaterThanOrEqual(5);
    for (let i = 1; i < during.length; i++) expect(during[i]! - during[i - 1]!).toBeLessThanOrEqual(100);
  });

  it('keeps at most `limit` in flight and waits for every piece before it resolves', async () => {
    let inFlight = 0;
    let peak = 0;
    let finished = 0;
    await eachInSlices(200, 7, 50, async () => {
      inFlight += 1;
      peak = Math.max(peak, inFlight);
      await new Promise((r) => setTimeout(r, 1));
      inFlight -= 1;
      finished += 1;
    });

    expect(peak).toBe(7);
    expect(finished).toBe(200);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    const run = eachInSlices(1000, 1, 100, async (i) => {
      started.push(i);
      await Promise.resolve();
      if (i === 3) throw new Error('a bug in target 3');
    });

    await expect(run).rejects.toThrow('a bug in target 3');
    expect(started).toEqual([0, 1, 2, 3]);
  });
});
