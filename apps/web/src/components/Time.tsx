import { formatTime } from './units';

/** A timestamp from the hub in the reader's language and time zone, machine-readable in `dateTime`. */
export function Time({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={value} title={value}>
      {formatTime(value)}
    </time>
  );
}
