/**
 * What the CLI prints for people (the `--json` output is the hub's own objects, unchanged): tables with
 * aligned columns, one object as `field: value` lines, a fan-out result as a header and its streams, an event
 * as one line. Pure functions of their input, so the unit tier checks them.
 */
import type {
  ApiKey,
  Asset,
  BlastRadius,
  EventEnvelope,
  ExecResult,
  ExecSummary,
  IncidentReview,
  MaintenanceWindow,
} from '@svc/protocol';

/** C0 controls but tab and newline, DEL, and the one-byte CSI: what could move a terminal's cursor. */
// eslint-disable-next-line no-control-regex
const controlCharacters = /[\u0000-\u0008\u000b-\u001f\u007f\u009b]/g;

/** Control characters a hub or agent could send are shown escaped: output never drives the terminal. */
export function safeText(text: string): string {
  return text.replace(controlCharacters, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart; no trailing spaces. */
export function formatTable(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const all = [header, ...rows].map((row) => row.map((cell) => safeText(cell.replace(/\n/g, ' '))));
  const widths = header.map((_, i) => Math.max(...all.map((row) => (row[i] ?? '').length)));
  return all
    .map((row) =>
      row
        .map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0)))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** `2026-01-02T03:04:05.678Z` → `2026-01-02 03:04:05Z`; `-` for never. */
export function formatTime(value: string | null | undefined): string {
  if (!value) return '-';
  return value.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}

export function formatAssetTable(assets: readonly Asset[]): string {
  return formatTable(
    ['NAME', 'STATUS', 'PLATFORM', 'HOSTNAME', 'LAST SEEN', 'ID'],
    assets.map((a) => [a.name, a.status, a.platform, a.hostname ?? '-', formatTime(a.last_seen_at), a.id]),
  );
}

/** `field: value` lines, the names aligned. */
export function formatFields(fields: readonly (readonly [string, string])[]): string {
  const width = Math.max(...fields.map(([name]) => name.length)) + 1;
  return fields.map(([name, value]) => `${`${name}:`.padEnd(width)} ${safeText(value)}`).join('\n');
}

export function formatAsset(asset: Asset): string {
  const agent = asset.agent
    ? `${asset.agent.connected ? 'connected' : 'not connected'}${asset.agent.version ? `, version ${asset.agent.version}` : ''}`
    : 'none';
  return formatFields([
    ['name', asset.name],
    ['id', asset.id],
    ['status', asset.status],
    ['platform', asset.platform],
    ['hostname', asset.hostname ?? '-'],
    ['source', asset.source],
    ['ip addresses', asset.ip_addresses.join(', ') || '-'],
    ['mac address', asset.mac_address ?? '-'],
    ['tags', asset.tags.join(', ') || '-'],
    ['description', asset.description ?? '-'],
    ['agent', agent],
    ['hub host', asset.hub_host ? 'yes' : 'no'],
    ['last seen', formatTime(asset.last_seen_at)],
    ['created', formatTime(asset.created_at)],
  ]);
}

export function formatKeyTable(keys: readonly ApiKey[]): string {
  return formatTable(
    ['NAME', 'ROLE', 'SCOPES', 'PREFIX', 'EXPIRES', 'LAST USED', 'ID'],
    keys.map((k) => [
      k.name,
      k.role,
      k.scopes.join(','),
      k.prefix,
      formatTime(k.expires_at),
      formatTime(k.last_used_at),
      k.id,
    ]),
  );
}

/** When a window holds: its span, or its cron, duration and zone. */
function windowTiming(w: MaintenanceWindow): string {
  if (w.kind === 'one_off') return `${formatTime(w.starts_at)} .. ${formatTime(w.ends_at)}`;
  return `${w.cron ?? ''} for ${String(w.duration_minutes ?? 0)} min (${w.timezone})`;
}

export function formatMaintenanceTable(windows: readonly MaintenanceWindow[]): string {
  return formatTable(
    ['NAME', 'WHEN', 'NOW', 'NEXT', 'REASON', 'ID'],
    windows.map((w) => [
      w.name,
      windowTiming(w),
      w.current ? `until ${formatTime(w.current.ends_at)}` : '-',
      formatTime(w.next_occurrences[0]?.starts_at),
      w.reason,
      w.id,
    ]),
  );
}

/** Whether a target's run counts as a success: it ran, and its command ended with 0. */
export function isSuccess(result: ExecResult): boolean {
  return result.status === 'ok' && result.exit_code === 0;
}

/** The line that opens a target's output: `==> web-1: exit 0 (12 ms)` or `==> db: offline (…)`. */
export function formatResultHeader(result: ExecResult, name: string): string {
  const outcome =
    result.status === 'ok'
      ? `exit ${String(result.exit_code ?? '?')}`
      : `${result.status}${result.error ? `: ${result.error}` : ''}`;
  const cut = result.truncated ? ', output cut' : '';
  return `==> ${safeText(name)}: ${safeText(outcome)} (${String(result.duration_ms)} ms${cut})`;
}

/** A stream's text, escaped, ending with one newline (nothing when empty). */
export function formatStream(text: string): string {
  if (text === '') return '';
  // Tabs and newlines stay; other control characters are shown escaped.
  const safe = text.split('\n').map(safeText).join('\n');
  return safe.endsWith('\n') ? safe : `${safe}\n`;
}

/** `3 targets: 2 exited 0, 1 exited non-zero, …` (`nonZero`: results `ok` whose exit code was not 0). */
export function formatSummary(summary: ExecSummary, nonZero: number): string {
  const parts = [`${String(summary.ok - nonZero)} exited 0`];
  if (nonZero > 0) parts.push(`${String(nonZero)} exited non-zero`);
  if (summary.offline > 0) parts.push(`${String(summary.offline)} offline`);
  if (summary.timeout > 0) parts.push(`${String(summary.timeout)} timed out`);
  if (summary.error > 0) parts.push(`${String(summary.error)} failed`);
  return `${String(summary.total)} target${summary.total === 1 ? '' : 's'}: ${parts.join(', ')}`;
}

/** The progress line of a fan-out: `[12/300] 10 ok, 2 failed`. */
export function formatProgress(done: number, total: number | null, failed: number): string {
  const of = total === null ? String(done) : `${String(done)}/${String(total)}`;
  return `[${of}] ${String(done - failed)} ok, ${String(failed)} failed`;
}

/** An event as one line: time, type, subject, then the payload's fields. */
export function formatEvent(event: EventEnvelope): string {
  const data: Record<string, unknown> = event.data;
  const fields = Object.entries(data)
    .filter(([, v]) => v !== null && v !== undefined && typeof v !== 'object')
    .map(([k, v]) => `${k}=${String(v as string | number | boolean)}`)
    .join(' ');
  return safeText(`${formatTime(event.ts)}  ${event.type}${fields ? `  ${fields}` : ''}`);
}

/** What depends on an asset: a count line, then one row per dependent, nearest first. */
export function formatBlastRadius(r: BlastRadius): string {
  if (r.total === 0) return 'nothing depends on this asset';
  const count = (n: number, word: string) => `${String(n)} ${word}${n === 1 ? '' : 's'}`;
  const head = `${count(r.total, 'dependent')} (${String(r.direct)} directly; ${count(r.assets, 'asset')}, ${count(r.containers, 'container')})`;
  const notes = [
    ...(r.depth_limited ? [`more lie deeper than ${String(r.max_depth)} links`] : []),
    ...(r.truncated ? [`listing the first ${String(r.dependents.length)}`] : []),
  ];
  return [
    safeText(notes.length > 0 ? `${head}; ${notes.join('; ')}` : head),
    formatTable(
      ['NAME', 'KIND', 'DEPTH', 'VIA', 'ID'],
      r.dependents.map((d) => [d.name, d.kind, String(d.depth), d.via, d.id]),
    ),
  ].join('\n');
}

/** An incident's review for people: the incident, what was written, the timeline. */
export function formatReview(r: IncidentReview): string {
  const i = r.incident;
  const block = (title: string, text: string) => [
    `${title}:`,
    text === '' ? '  (not written)' : safeText(text).replace(/^/gm, '  '),
  ];
  return [
    safeText(`${i.title} [${i.severity}, ${i.status}] ${i.id}`),
    `opened ${formatTime(i.opened_at)}, resolved ${formatTime(i.resolved_at)}`,
    ...block('summary', r.summary),
    ...block('cause', r.cause),
    'follow-ups:',
    ...(r.follow_ups.length === 0
      ? ['  (none)']
      : r.follow_ups.map((f) => safeText(`  [${f.done ? 'x' : ' '}] ${f.text}`))),
    'timeline:',
    ...r.timeline.map((e) =>
      safeText(
        `  ${formatTime(e.ts)}  ${e.source}  ${e.text.replace(/\n/g, ' ')}${e.actor ? ` (by ${e.actor})` : ''}`,
      ),
    ),
    ...(r.note ? [safeText(r.note)] : []),
  ].join('\n');
}
