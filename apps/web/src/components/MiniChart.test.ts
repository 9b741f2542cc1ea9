import { describe, expect, it } from 'vitest';
import { silentSpans } from './MiniChart';

describe('the small chart’s gaps', () => {
  const minute = 60;

  it('finds where no sample came for more than five usual intervals, edges of the span included', () => {
    // One a minute over an hour, none from minute 20 to minute 40, and none in the last 10 minutes.
    const times = [
      ...Array.from({ length: 20 }, (_, i) => i * minute),
      ...Array.from({ length: 11 }, (_, i) => (40 + i) * minute),
    ];
    expect(silentSpans(times, 0, 60 * minute)).toEqual([
      [19 * minute, 40 * minute],
      [50 * minute, 60 * minute],
    ]);
  });

  it('sees no gap in steady samples, nor with too few samples to know the interval', () => {
    expect(silentSpans([0, 60, 120, 180], 0, 200)).toEqual([]);
    expect(silentSpans([100], 0, 3600)).toEqual([]);
    expect(silentSpans([], 0, 3600)).toEqual([]);
  });
});
