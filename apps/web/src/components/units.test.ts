import { afterEach, describe, expect, it } from 'vitest';
import { setActiveLocale } from '../i18n/active-locale';
import { formatAgo, formatBytes, formatDuration, formatPercent, formatTime, formatTimeIn } from './units';

afterEach(() => {
  setActiveLocale('en');
});

describe('display units', () => {
  it('formats bytes with binary units', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1,023 B');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatBytes(250 * 1024 * 1024)).toBe('250 MiB');
    expect(formatBytes(-1)).toBe('—');
  });

  it('formats durations from milliseconds', () => {
    expect(formatDuration(12)).toBe('12 ms');
    expect(formatDuration(1234)).toBe('1.23 s');
    expect(formatDuration(1200)).toBe('1.20 s');
    expect(formatDuration(12_000)).toBe('12.0 s');
    expect(formatDuration(95_000)).toBe('1 min 35 s');
  });

  it('formats percentages and absent values', () => {
    expect(formatPercent(12.345)).toBe('12.3 %');
    expect(formatPercent(null)).toBe('—');
  });

  it('writes numbers, times and ages as the reader’s language does, units kept', () => {
    setActiveLocale('de');
    expect(formatBytes(1536)).toBe('1,5 KiB');
    expect(formatDuration(1234)).toBe('1,23 s');
    expect(formatPercent(12.345)).toBe('12,3 %');
    expect(formatAgo(300)).toBe('vor 5 Min.');
    setActiveLocale('zh-CN');
    expect(formatAgo(7200)).toBe('2小时前');
    setActiveLocale('fr');
    expect(formatTime('2026-11-30T06:40:00Z')).toMatch(/^30\/11\/2026 \d{1,2}:40:00$/);
  });

  it('writes a chart’s times in the zone asked, whatever the browser’s', () => {
    const at = Date.parse('2026-11-30T06:40:00Z');
    expect(formatTimeIn(at, 'UTC', 'clock')).toMatch(/^6:40\s?AM$/);
    // India is 5 h 30 ahead, New York 5 h behind: the same instant, other clocks and another day.
    expect(formatTimeIn(at, 'Asia/Kolkata', 'clock')).toMatch(/^12:10\s?PM$/);
    expect(formatTimeIn(at, 'America/New_York', 'day')).toBe('Nov 30');
    expect(formatTimeIn(Date.parse('2026-11-30T03:00:00Z'), 'America/New_York', 'day')).toBe('Nov 29');
    setActiveLocale('de');
    expect(formatTimeIn(at, 'Asia/Kolkata', 'full')).toBe('30.11.2026, 12:10:00');
  });
});
