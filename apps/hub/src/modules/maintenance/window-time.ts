/**
 * When a maintenance window holds (pure: no clock, no database). An occurrence is [start, end), the end
 * excluded. One-off windows have one; recurring ones open one at each tick of their cron expression in their
 * time zone, lasting `durationMinutes` of elapsed time (so an occurrence across a DST change is still that many
 * minutes long). Occurrences of one window never overlap (checked when it is saved), so at most one holds at a
 * time; windows may overlap each other, and an asset is in maintenance while any of its windows holds.
 */
import { maintenanceLimits, type MaintenanceKind } from '@svc/protocol';
import { Cron } from 'croner';

export interface WindowTiming {
  kind: MaintenanceKind;
  startsAt: string | null;
  endsAt: string | null;
  cron: string | null;
  durationMinutes: number | null;
  timezone: string;
}

export interface Occurrence {
  start: Date;
  end: Date;
}

export type TimingCheck = { ok: true; timing: WindowTiming } | { ok: false; field: string; message: string };

/** What a create or update gives of the timing (an update merged over the stored window first). */
export interface TimingInput {
  startsAt?: string | undefined;
  endsAt?: string | undefined;
  cron?: string | undefined;
  durationMinutes?: number | undefined;
  timezone?: string | undefined;
}

/** Occurrences compared to find the shortest gap between two of them. */
const gapSample = 100;
const minuteMs = 60_000;

/** Parsed expressions by `cron|zone`: a hub holds a few hundred windows, so the map stays small. */
const parsed = new Map<string, Cron>();
const parsedMax = 2_000;

function cronOf(expression: string, timezone: string): Cron {
  const key = `${expression}|${timezone}`;
  let cron = parsed.get(key);
  if (!cron) {
    if (parsed.size >= parsedMax) parsed.clear();
    cron = new Cron(expression, { timezone, paused: true });
    parsed.set(key, cron);
  }
  return cron;
}

/** The zone's canonical name, or null when the runtime does not know it. */
function canonicalZone(timezone: string): string | null {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

function parseInstant(value: string): Date | null {
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? null : new Date(ms);
}

/**
 * Checks a window's timing: one-off (`startsAt` before `endsAt`, ending in the future, at most
 * `maxOneOffDays` long) or recurring (a valid cron with future ticks in a known zone, a duration no longer than
 * the shortest gap between two ticks). Mixing the two forms is refused.
 */
export function checkTiming(input: TimingInput, now: Date): TimingCheck {
  const zone = canonicalZone(input.timezone ?? 'UTC');
  if (zone === null) {
    return { ok: false, field: 'timezone', message: `${input.timezone} is not an IANA time zone` };
  }
  const oneOff = input.startsAt !== undefined || input.endsAt !== undefined;
  const recurring = input.cron !== undefined || input.durationMinutes !== undefined;
  if (oneOff && recurring) {
    return { ok: false, field: 'cron', message: 'give starts_at and ends_at, or cron and duration_minutes' };
  }
  if (oneOff) return checkOneOff(input, zone, now);
  if (recurring) return checkRecurring(input, zone, now);
  return {
    ok: false,
    field: 'starts_at',
    message: 'give starts_at and ends_at (one-off) or cron and duration_minutes (recurring)',
  };
}

function checkOneOff(input: TimingInput, zone: string, now: Date): TimingCheck {
  if (input.startsAt === undefined) return { ok: false, field: 'starts_at', message: 'is required' };
  if (input.endsAt === undefined) return { ok: false, field: 'ends_at', message: 'is required' };
  const start = parseInstant(input.startsAt);
  const end = parseInstant(input.endsAt);
  if (start === null) return { ok: false, field: 'starts_at', message: 'must be an RFC 3339 date-time' };
  if (end === null) return { ok: false, field: 'ends_at', message: 'must be an RFC 3339 date-time' };
  if (end.getTime() <= start.getTime()) {
    return { ok: false, field: 'ends_at', message: 'must be after starts_at' };
  }
  if (end.getTime() <= now.getTime())
    return { ok: false, field: 'ends_at', message: 'must be in the future' };
  if (end.getTime() - start.getTime() > maintenanceLimits.maxOneOffDays * 24 * 60 * minuteMs) {
    return {
      ok: false,
      field: 'ends_at',
      message: `a one-off window lasts at most ${maintenanceLimits.maxOneOffDays} days`,
    };
  }
  return {
    ok: true,
    timing: {
      kind: 'one_off',
      startsAt: start.toISOString(),
      endsAt: end.toISOString(),
      cron: null,
      durationMinutes: null,
      timezone: zone,
    },
  };
}

function checkRecurring(input: TimingInput, zone: string, now: Date): TimingCheck {
  if (input.cron === undefined) return { ok: false, field: 'cron', message: 'is required' };
  if (input.durationMinutes === undefined) {
    return { ok: false, field: 'duration_minutes', message: 'is required' };
  }
  const { durationMinutes } = input;
  if (
    !Number.isInteger(durationMinutes) ||
    durationMinutes < maintenanceLimits.minDurationMinutes ||
    durationMinutes > maintenanceLimits.maxDurationMinutes
  ) {
    return {
      ok: false,
      field: 'duration_minutes',
      message: `must be a whole number from ${maintenanceLimits.minDurationMinutes} to ${maintenanceLimits.maxDurationMinutes}`,
    };
  }
  const expression = input.cron.trim();
  const fields = expression.split(/\s+/).length;
  if (fields < 5 || fields > 6) {
    return { ok: false, field: 'cron', message: 'must have 5 fields, or 6 with seconds first' };
  }
  let cron: Cron;
  try {
    cron = cronOf(expression, zone);
  } catch (error) {
    const reason = error instanceof Error ? error.message.replace(/^CronPattern: /, '') : 'invalid';
    return { ok: false, field: 'cron', message: reason };
  }
  const ticks = cron.nextRuns(gapSample + 1, now);
  if (ticks.length === 0) return { ok: false, field: 'cron', message: 'has no future tick' };
  const durationMs = durationMinutes * minuteMs;
  for (let i = 1; i < ticks.length; i++) {
    const gap = (ticks[i]?.getTime() ?? 0) - (ticks[i - 1]?.getTime() ?? 0);
    if (gap < durationMs) {
      return {
        ok: false,
        field: 'duration_minutes',
        message: `is longer than the ${Math.floor(gap / minuteMs)} minutes between two ticks of the cron expression`,
      };
    }
  }
  return {
    ok: true,
    timing: {
      kind: 'recurring',
      startsAt: null,
      endsAt: null,
      cron: expression,
      durationMinutes,
      timezone: zone,
    },
  };
}

/** The occurrence holding `now`, or null. */
export function currentOccurrence(timing: WindowTiming, now: Date): Occurrence | null {
  if (timing.kind === 'one_off') {
    if (timing.startsAt === null || timing.endsAt === null) return null;
    const start = new Date(timing.startsAt);
    const end = new Date(timing.endsAt);
    return start.getTime() <= now.getTime() && now.getTime() < end.getTime() ? { start, end } : null;
  }
  if (timing.cron === null || timing.durationMinutes === null) return null;
  const durationMs = timing.durationMinutes * minuteMs;
  // The only tick that can hold now is the first one after now - duration (occurrences do not overlap); a
  // tick exactly at now - duration has just ended.
  const start = cronOf(timing.cron, timing.timezone).nextRun(new Date(now.getTime() - durationMs));
  if (start === null || start.getTime() > now.getTime()) return null;
  return { start, end: new Date(start.getTime() + durationMs) };
}

/** The next `count` occurrences starting after `now`. */
export function nextOccurrences(timing: WindowTiming, now: Date, count: number): Occurrence[] {
  if (timing.kind === 'one_off') {
    if (timing.startsAt === null || timing.endsAt === null) return [];
    const start = new Date(timing.startsAt);
    return start.getTime() > now.getTime() && count > 0 ? [{ start, end: new Date(timing.endsAt) }] : [];
  }
  if (timing.cron === null || timing.durationMinutes === null) return [];
  const durationMs = timing.durationMinutes * minuteMs;
  return cronOf(timing.cron, timing.timezone)
    .nextRuns(count, now)
    .map((start) => ({ start, end: new Date(start.getTime() + durationMs) }));
}
