/**
 * How sizes, rates, durations and times read in the console: short, with their unit, the same on every page,
 * in the reader's language (numbers, dates and relative times through Intl, in the locale the language
 * provider set; dates in the viewer's own time zone). Unit symbols (B, KiB, ms, s, min, %) are the
 * international ones in every language.
 */
import { activeLocale } from '../i18n/active-locale';

const byteUnits = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

const formats = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>();

/** One formatter per locale and options: building one costs more than using it. */
function cached<T extends Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat>(
  kind: string,
  make: (locale: string) => T,
): T {
  const key = `${kind}:${activeLocale()}`;
  let format = formats.get(key);
  if (!format) formats.set(key, (format = make(activeLocale())));
  return format as T;
}

/** A number with at most `digits` decimals, as the reader writes numbers (1,234.5 or 1.234,5). */
export function formatNumber(value: number, digits = 0): string {
  return cached(
    `number${String(digits)}`,
    (locale) => new Intl.NumberFormat(locale, { maximumFractionDigits: digits }),
  ).format(value);
}

/** A number with exactly `digits` decimals (12.30). */
function fixed(value: number, digits: number): string {
  return cached(
    `fixed${String(digits)}`,
    (locale) =>
      new Intl.NumberFormat(locale, { minimumFractionDigits: digits, maximumFractionDigits: digits }),
  ).format(value);
}

/** `1536` → `1.5 KiB`; whole bytes below 1 KiB. */
export function formatBytes(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) return '—';
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < byteUnits.length - 1) {
    value /= 1024;
    unit += 1;
  }
  const number = unit === 0 ? formatNumber(value) : formatNumber(value, value < 10 ? 1 : 0);
  return `${number} ${byteUnits[unit] ?? ''}`;
}

/** `1234` ms → `1.23 s`; `95000` → `1 min 35 s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${formatNumber(Math.round(ms))} ms`;
  const seconds = ms / 1000;
  // Fixed decimals, as a stopwatch shows them: 1.20 s, not 1.2 s.
  if (seconds < 60) return `${fixed(seconds, seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  return `${formatNumber(minutes)} min ${formatNumber(Math.round(seconds - minutes * 60))} s`;
}

export function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : `${fixed(value, 1)} %`;
}

/** A timestamp in the reader's language and time zone, or a dash. */
export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return cached(
    'datetime',
    (locale) =>
      new Intl.DateTimeFormat(locale, {
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: '2-digit',
        second: '2-digit',
      }),
  ).format(ms);
}

/** The time of day only (today's events). */
export function formatClock(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return cached(
    'clock',
    (locale) => new Intl.DateTimeFormat(locale, { hour: 'numeric', minute: '2-digit', second: '2-digit' }),
  ).format(ms);
}

/** The date only. */
export function formatDate(iso: string): string {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms)) return iso;
  return cached('date', (locale) => new Intl.DateTimeFormat(locale, { dateStyle: 'medium' })).format(ms);
}

/**
 * Times on charts, in a zone the reader chose (theirs or the hub's): `full` with the date and seconds (a
 * tooltip), `clock` hours and minutes (an axis within a day), `day` the date alone (an axis over days).
 */
export function formatTimeIn(ms: number, timeZone: string, style: 'full' | 'clock' | 'day'): string {
  const options: Record<typeof style, Intl.DateTimeFormatOptions> = {
    full: { dateStyle: 'medium', timeStyle: 'medium' },
    clock: { hour: 'numeric', minute: '2-digit' },
    day: { month: 'short', day: 'numeric' },
  };
  return cached(
    `zoned:${style}:${timeZone}`,
    (locale) => new Intl.DateTimeFormat(locale, { ...options[style], timeZone }),
  ).format(ms);
}

/** "12 sec. ago", "vor 5 Min.": how long ago, in the largest unit that fits (seconds, minutes, hours). */
export function formatAgo(seconds: number): string {
  const format = cached('ago', (locale) => new Intl.RelativeTimeFormat(locale, { style: 'short' }));
  if (seconds < 60) return format.format(-seconds, 'second');
  if (seconds < 3600) return format.format(-Math.round(seconds / 60), 'minute');
  return format.format(-Math.round(seconds / 3600), 'hour');
}
