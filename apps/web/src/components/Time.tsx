/** A timestamp from the hub in the reader's locale, machine-readable in `dateTime`; a dash when absent. */
export function Time({ value, empty = '—' }: { value: string | null | undefined; empty?: string }) {
  if (!value) return <span className="muted">{empty}</span>;
  return (
    <time dateTime={value} title={value}>
      {new Date(value).toLocaleString()}
    </time>
  );
}
