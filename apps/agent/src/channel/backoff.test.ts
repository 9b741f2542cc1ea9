import { describe, expect, it } from 'vitest';
import { defaultBackoff, nextDelay } from './backoff.js';

describe('nextDelay', () => {
  it('grows the ceiling exponentially from the base', () => {
    const almostOne = () => 0.999_999;
    expect([0, 1, 2, 3, 4].map((attempt) => nextDelay(attempt, almostOne))).toEqual([
      999, 1999, 3999, 7999, 15_999,
    ]);
  });

  it('is capped at 30 s however many attempts failed', () => {
    for (const attempt of [6, 10, 50, 1_000, Number.MAX_SAFE_INTEGER]) {
      expect(nextDelay(attempt, () => 0.999_999)).toBeLessThanOrEqual(30_000);
      expect(nextDelay(attempt, () => 0.999_999)).toBeGreaterThan(29_000);
    }
  });

  it('spreads delays over the whole range (full jitter)', () => {
    expect(nextDelay(4, () => 0.5)).toBe(8_000);
    expect(nextDelay(4, () => 0.25)).toBe(4_000);
    expect(nextDelay(5, () => 0.5)).toBe(15_000);
  });

  it('never goes below the floor, even when the dice say 0', () => {
    expect(nextDelay(0, () => 0)).toBe(defaultBackoff.minMs);
    expect(nextDelay(8, () => 0)).toBe(defaultBackoff.minMs);
  });

  it('treats a bad random value and a negative attempt safely', () => {
    expect(nextDelay(-3, () => 0.5)).toBe(500);
    expect(nextDelay(3, () => 7)).toBe(8_000);
    expect(nextDelay(3, () => -1)).toBe(defaultBackoff.minMs);
  });

  it('follows a custom policy', () => {
    expect(nextDelay(4, () => 0.999_999, { baseMs: 10, capMs: 100, minMs: 1, resetAfterMs: 0 })).toBe(99);
  });
});
