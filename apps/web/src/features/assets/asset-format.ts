import type { Asset } from '@svc/protocol';

/**
 * The reader's date format, made once: `toLocaleDateString` builds a formatter on every call, which a list
 * of assets last seen days ago would pay on every row it brings into view.
 */
const dateFormat = new Intl.DateTimeFormat();

export function lastSeenText(asset: Pick<Asset, 'last_seen_at'>, now = Date.now()): string {
  if (!asset.last_seen_at) return 'never';
  const seconds = Math.max(0, Math.round((now - Date.parse(asset.last_seen_at)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return dateFormat.format(Date.parse(asset.last_seen_at));
}

/** `a, b ,,c` → `['a', 'b', 'c']`: lists typed in one text field. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
