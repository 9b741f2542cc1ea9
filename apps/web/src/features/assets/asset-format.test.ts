import { afterEach, describe, expect, it } from 'vitest';
import { setActiveLocale } from '../../i18n/active-locale';
import { lastSeenText } from './asset-format';

const now = Date.parse('2026-11-30T12:00:00Z');
const ago = (seconds: number) => ({ last_seen_at: new Date(now - seconds * 1000).toISOString() });

afterEach(() => {
  setActiveLocale('en');
});

describe('last seen', () => {
  it('counts seconds, minutes and hours ago, in the reader’s language', () => {
    expect(lastSeenText(ago(12), 'never', now)).toBe('12 sec. ago');
    expect(lastSeenText(ago(150), 'never', now)).toBe('3 min. ago');
    expect(lastSeenText(ago(5 * 3600), 'never', now)).toBe('5 hr. ago');
    setActiveLocale('de');
    expect(lastSeenText(ago(150), 'nie', now)).toBe('vor 3 Min.');
  });

  it('gives the date after a day', () => {
    expect(lastSeenText(ago(3 * 86_400), 'never', now)).toBe('Nov 27, 2026');
  });

  it('says the given word for an asset never seen', () => {
    expect(lastSeenText({ last_seen_at: null }, 'jamais', now)).toBe('jamais');
  });
});
