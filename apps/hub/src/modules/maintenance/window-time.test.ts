import { describe, expect, it } from 'vitest';
import { checkTiming, currentOccurrence, nextOccurrences, type WindowTiming } from './window-time.js';

const at = (iso: string) => new Date(iso);

function recurring(cron: string, durationMinutes: number, timezone = 'UTC'): WindowTiming {
  return { kind: 'recurring', startsAt: null, endsAt: null, cron, durationMinutes, timezone };
}

function oneOff(startsAt: string, endsAt: string): WindowTiming {
  return { kind: 'one_off', startsAt, endsAt, cron: null, durationMinutes: null, timezone: 'UTC' };
}

describe('one-off windows', () => {
  const window = oneOff('2026-05-01T10:00:00.000Z', '2026-05-01T12:00:00.000Z');

  it('hold from their start, inclusive, to their end, exclusive', () => {
    expect(currentOccurrence(window, at('2026-05-01T09:59:59.999Z'))).toBeNull();
    expect(currentOccurrence(window, at('2026-05-01T10:00:00.000Z'))?.start.toISOString()).toBe(
      '2026-05-01T10:00:00.000Z',
    );
    expect(currentOccurrence(window, at('2026-05-01T11:59:59.999Z'))).not.toBeNull();
    expect(currentOccurrence(window, at('2026-05-01T12:00:00.000Z'))).toBeNull();
  });

  it('show their one occurrence ahead until it starts', () => {
    expect(nextOccurrences(window, at('2026-05-01T09:00:00Z'), 5)).toHaveLength(1);
    expect(nextOccurrences(window, at('2026-05-01T10:30:00Z'), 5)).toHaveLength(0);
  });
});

describe('recurring windows', () => {
  it('hold for their duration after each tick, the end excluded', () => {
    const nightly = recurring('0 2 * * *', 60);
    expect(currentOccurrence(nightly, at('2026-05-01T01:59:59Z'))).toBeNull();
    const holding = currentOccurrence(nightly, at('2026-05-01T02:30:00Z'));
    expect(holding?.start.toISOString()).toBe('2026-05-01T02:00:00.000Z');
    expect(holding?.end.toISOString()).toBe('2026-05-01T03:00:00.000Z');
    expect(currentOccurrence(nightly, at('2026-05-01T03:00:00Z'))).toBeNull();
  });

  it('follow the wall clock of their zone across a DST change, each lasting its minutes', () => {
    // 01:00 in Berlin is 00:00 UTC in winter (CET) and 23:00 UTC the day before in summer (CEST).
    const berlin = recurring('0 1 * * *', 120, 'Europe/Berlin');
    const ahead = nextOccurrences(berlin, at('2026-03-28T12:00:00Z'), 3).map((o) => [
      o.start.toISOString(),
      o.end.toISOString(),
    ]);
    expect(ahead).toEqual([
      ['2026-03-29T00:00:00.000Z', '2026-03-29T02:00:00.000Z'],
      ['2026-03-29T23:00:00.000Z', '2026-03-30T01:00:00.000Z'],
      ['2026-03-30T23:00:00.000Z', '2026-03-31T01:00:00.000Z'],
    ]);
    // The night the clocks go forward the occurrence still lasts 120 minutes of elapsed time.
    expect(currentOccurrence(berlin, at('2026-03-29T01:59:00Z'))).not.toBeNull();
    expect(currentOccurrence(berlin, at('2026-03-29T02:00:00Z'))).toBeNull();
  });

  it('opens a tick that falls in the hour skipped by DST at the first valid time after it', () => {
    const skipped = recurring('30 2 * * *', 30, 'Europe/Berlin');
    const [first] = nextOccurrences(skipped, at('2026-03-28T12:00:00Z'), 1);
    // 02:30 does not exist on 29 March in Berlin: croner runs it at 03:00 CEST (01:00 UTC).
    expect(first?.start.toISOString()).toBe('2026-03-29T01:00:00.000Z');
  });
});

describe('checking a timing', () => {
  const now = at('2026-05-01T00:00:00Z');

  it('accepts a one-off span and a recurring cron, canonicalising the zone', () => {
    expect(
      checkTiming({ startsAt: '2026-05-02T00:00:00Z', endsAt: '2026-05-02T01:00:00Z' }, now),
    ).toMatchObject({ ok: true, timing: { kind: 'one_off' } });
    expect(
      checkTiming({ cron: '0 3 * * 0', durationMinutes: 90, timezone: 'europe/berlin' }, now),
    ).toMatchObject({ ok: true, timing: { kind: 'recurring', timezone: 'Europe/Berlin' } });
  });

  it.each([
    [{ startsAt: '2026-05-02T01:00:00Z', endsAt: '2026-05-02T00:00:00Z' }, 'ends_at'],
    [{ startsAt: '2026-04-01T00:00:00Z', endsAt: '2026-04-02T00:00:00Z' }, 'ends_at'],
    [{ startsAt: '2026-05-02T00:00:00Z', endsAt: '2026-07-02T00:00:00Z' }, 'ends_at'],
    [{ startsAt: '2026-05-02T00:00:00Z' }, 'ends_at'],
    [{ cron: '0 3 * * *' }, 'duration_minutes'],
    [{ cron: 'not a cron', durationMinutes: 10 }, 'cron'],
    [{ cron: '0 3 * *', durationMinutes: 10 }, 'cron'],
    [{ cron: '61 3 * * *', durationMinutes: 10 }, 'cron'],
    [{ cron: '0 3 * * *', durationMinutes: 0 }, 'duration_minutes'],
    [{ cron: '0 3 * * *', durationMinutes: 20_000 }, 'duration_minutes'],
    [{ cron: '0 3 * * *', durationMinutes: 10, timezone: 'Mars/Olympus' }, 'timezone'],
    [{ cron: '0 3 * * *', durationMinutes: 10, startsAt: '2026-05-02T00:00:00Z' }, 'cron'],
    [{}, 'starts_at'],
  ])('refuses %j naming %s', (input, field) => {
    expect(checkTiming(input, now)).toMatchObject({ ok: false, field });
  });

  it('refuses a duration longer than the gap between two ticks (occurrences of one window never overlap)', () => {
    // Twice a day, 6 hours apart at the shortest: 7 hours would overlap the next occurrence.
    expect(checkTiming({ cron: '0 6,12 * * *', durationMinutes: 7 * 60 }, now)).toMatchObject({
      ok: false,
      field: 'duration_minutes',
    });
    expect(checkTiming({ cron: '0 6,12 * * *', durationMinutes: 6 * 60 }, now)).toMatchObject({ ok: true });
  });
});
