/** Cron expressions and time zones, checked with croner: 5 fields, or 6 with seconds first. */
import { Cron } from 'croner';
import { validationError } from '../../platform/hub-error.js';

/** An IANA zone name the runtime knows, or a 400 naming `timezone`. */
export function checkTimezone(timezone: string): string {
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw validationError('timezone', `${timezone} is not an IANA time zone (e.g. Europe/Berlin, UTC)`);
  }
}

/** A parsed expression, or a 400 naming `cron`. */
export function parseCron(expression: string, timezone: string): Cron {
  const fields = expression.trim().split(/\s+/).length;
  if (fields < 5 || fields > 6) {
    throw validationError('cron', 'must have 5 fields, or 6 with seconds first');
  }
  try {
    return new Cron(expression, { timezone, paused: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : 'invalid';
    throw validationError('cron', reason.replace(/^CronPattern: /, ''));
  }
}

/** The first tick strictly after `after`, or null when the expression has none. */
export function nextTick(cron: Cron, after: Date): Date | null {
  return cron.nextRun(after);
}

/**
 * Ticks from `first` (a tick) up to and including `until`, counted up to `max`, and the first tick after
 * `until`: what a hub that was down missed.
 */
export function ticksUntil(
  cron: Cron,
  first: Date,
  until: Date,
  max = 100_000,
): { count: number; next: Date | null } {
  let count = 0;
  let tick: Date | null = first;
  while (tick !== null && tick.getTime() <= until.getTime() && count < max) {
    count += 1;
    tick = cron.nextRun(tick);
  }
  // Past `max`, jump: the next tick after `until` is what matters.
  if (tick !== null && tick.getTime() <= until.getTime()) tick = cron.nextRun(until);
  return { count, next: tick };
}
