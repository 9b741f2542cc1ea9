import type { Asset } from '@svc/protocol';
import { formatAgo, formatDate } from '../../components/units';

/** How long ago an asset was last heard from, in the reader's language; `never` when it was not. */
export function lastSeenText(asset: Pick<Asset, 'last_seen_at'>, never: string, now = Date.now()): string {
  if (!asset.last_seen_at) return never;
  const seconds = Math.max(0, Math.round((now - Date.parse(asset.last_seen_at)) / 1000));
  return seconds < 86_400 ? formatAgo(seconds) : formatDate(asset.last_seen_at);
}

/** `a, b ,,c` → `['a', 'b', 'c']`: lists typed in one text field. */
export function splitList(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
