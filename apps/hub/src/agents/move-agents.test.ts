import { describe, expect, it } from 'vitest';
import { defaultMoveRate, moveAgents } from './move-agents.js';

/**
 * How a stopping process spreads its agents' move (decision 0093): the notices go out in batches, a batch a
 * tenth of the rate per second, so the other processes take the agents on at that rate.
 */
async function batchesOf(count: number, options: Parameters<typeof moveAgents>[2]): Promise<number[]> {
  const gone = new Set<number>();
  const batches: number[] = [];
  let inBatch = false;
  // Notices of one batch are sent in the same turn of the event loop; the next batch comes after a wait.
  const outcome = await moveAgents(
    Array.from({ length: count }, (_, i) => i),
    {
      stillHere: (agent) => !gone.has(agent),
      notify: (agent) => {
        if (!inBatch) {
          inBatch = true;
          batches.push(0);
          queueMicrotask(() => {
            inBatch = false;
          });
        }
        batches[batches.length - 1] = (batches.at(-1) ?? 0) + 1;
        gone.add(agent);
        return true;
      },
    },
    options,
  );
  expect(outcome).toMatchObject({ told: count, left: 0 });
  return batches;
}

describe('moveAgents', () => {
  it('tells a tenth of the rate per batch', async () => {
    expect(await batchesOf(25, { perSecond: 100, batchIntervalMs: 1, withinMs: 0 })).toEqual([10, 10, 5]);
  });

  it('moves 1,000 agents a second unless told otherwise', async () => {
    expect(defaultMoveRate).toBe(1_000);
    expect(await batchesOf(250, { batchIntervalMs: 1, withinMs: 0 })).toEqual([100, 100, 50]);
  });

  it('takes an explicit batch size over the rate', async () => {
    expect(await batchesOf(5, { batchSize: 2, perSecond: 1_000, batchIntervalMs: 1, withinMs: 0 })).toEqual([
      2, 2, 1,
    ]);
  });

  it('does not tell an agent that has already gone', async () => {
    const told = new Set<number>();
    const outcome = await moveAgents(
      [1, 2, 3],
      {
        stillHere: (agent) => agent !== 2 && !told.has(agent),
        notify: (agent) => told.add(agent).size > 0,
      },
      { withinMs: 0 },
    );
    expect([...told]).toEqual([1, 3]);
    expect(outcome).toMatchObject({ told: 2, left: 0 });
  });
});
