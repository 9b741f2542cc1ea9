/** Durations in settings: `30s`, `5m`, `1h`, or plain seconds (`45`, or the number 45 in the settings file). */

const units: Record<string, number> = { s: 1, m: 60, h: 3600 };
/** A week: anything longer is surely a typo (`5h` meant `5m`). */
const maxDurationSeconds = 7 * 24 * 3600;

/** Seconds, or null when the value is not a duration of at least one second and at most a week. */
export function parseDuration(value: unknown): number | null {
  let seconds: number;
  if (typeof value === 'number') {
    seconds = value;
  } else if (typeof value === 'string') {
    const match = /^\s*(\d{1,9})\s*([smh]?)\s*$/i.exec(value);
    if (!match) return null;
    const unit = (match[2] ?? '').toLowerCase() || 's';
    seconds = Number(match[1]) * (units[unit] ?? 1);
  } else {
    return null;
  }
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > maxDurationSeconds) return null;
  return seconds;
}

/** The shortest exact spelling: 300 → `5m`, 90 → `90s`. */
export function formatDuration(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600}h`;
  if (seconds % 60 === 0) return `${seconds / 60}m`;
  return `${seconds}s`;
}

const truthy = new Set(['true', '1', 'yes', 'on']);
const falsy = new Set(['false', '0', 'no', 'off']);

/** `true/false/1/0/yes/no/on/off` (any case), or a JSON boolean; null otherwise. */
export function parseBoolean(value: unknown): boolean | null {
  if (typeof value === 'boolean') return value;
  if (typeof value !== 'string') return null;
  const text = value.trim().toLowerCase();
  if (truthy.has(text)) return true;
  if (falsy.has(text)) return false;
  return null;
}
