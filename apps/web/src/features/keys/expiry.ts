/** Between the hub's ISO 8601 timestamps and the `datetime-local` input, which reads and writes local time. */

export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** The input's local time as ISO 8601; null for an empty or unreadable value. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function daysFromNow(days: number, now = Date.now()): string {
  return new Date(now + days * 86_400_000).toISOString();
}

export function isExpired(iso: string | null, now = Date.now()): boolean {
  return iso !== null && new Date(iso).getTime() <= now;
}
