import { describe, expect, it } from 'vitest';
import { lastSeenText } from './asset-format';

const now = Date.parse('2026-11-30T12:00:00Z');
const ago = (seconds: number) => ({ last_seen_at: new Date(now - seconds * 1000).toISOString() });

describe('last seen', () => {
  it('counts seconds, minutes and hours ago', () => {
    expect(lastSeenText(ago(12), now)).toBe('12 s ago');
    expect(lastSeenText(ago(150), now)).toBe('3 min ago');
    expect(lastSeenText(ago(5 * 3600), now)).toBe('5 h ago');
  });

  it('gives the date, in the reader’s format, after a day', () => {
    const seen = ago(3 * 86_400);
    expect(lastSeenText(seen, now)).toBe(new Date(seen.last_seen_at).toLocaleDateString());
  });

  it('says never for an asset never seen', () => {
    expect(lastSeenText({ last_seen_at: null }, now)).toBe('never');
  });
});
