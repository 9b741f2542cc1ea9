import { describe, expect, it } from 'vitest';
import { countText, formatBytes, formatDuration, formatPercent } from './units';

describe('display units', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(250 * 1024 * 1024)).toBe('250 MiB');
    expect(formatBytes(-1)).toBe('—');
  });

  it('formats durations from milliseconds', () => {
    expect(formatDuration(12)).toBe('12 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(95_000)).toBe('1 min 35 s');
  });

  it('formats percentages and absent values', () => {
    expect(formatPercent(12.345)).toBe('12.3 %');
    expect(formatPercent(null)).toBe('—');
  });

  it('counts a noun, singular only for one', () => {
    expect(countText(0, 'group')).toBe('0 groups');
    expect(countText(1, 'webhook')).toBe('1 webhook');
    expect(countText(12, 'connector')).toBe('12 connectors');
  });
});
