/**
 * SVC_LOG_FORMAT=pretty: the hub's JSON log lines, rewritten for a person at a terminal —
 * `12:00:00.000 INFO  message  key=value …`, the request id first when a line has one. The JSON stays the
 * default (and what log collectors should read); this only reformats it, so redaction and bounds hold.
 */
import type { DestinationStream } from 'pino';

const levelNames: Record<number, string> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};

const levelColors: Record<number, string> = { 40: '\u001b[33m', 50: '\u001b[31m', 60: '\u001b[35m' };
const dim = '\u001b[2m';
const reset = '\u001b[0m';

/** Fields every line has, shown in their own places or left out (pid and hostname say nothing at a terminal). */
const placed = new Set(['level', 'time', 'msg', 'pid', 'hostname', 'reqId']);

function showValue(value: unknown): string {
  if (typeof value === 'string') return /[\s"=]/.test(value) || value === '' ? JSON.stringify(value) : value;
  return JSON.stringify(value);
}

function clockTime(time: unknown): string {
  const date = typeof time === 'number' ? new Date(time) : new Date();
  return date.toISOString().slice(11, 23);
}

/** One JSON log line as one readable line; a line that is not JSON is passed through as it is. */
export function formatPrettyLine(jsonLine: string, colors: boolean): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(jsonLine) as Record<string, unknown>;
  } catch {
    return jsonLine.endsWith('\n') ? jsonLine : `${jsonLine}\n`;
  }
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const name = (levelNames[level] ?? String(level)).padEnd(5);
  const color = colors ? (levelColors[level] ?? '') : '';
  const parts = [
    `${colors ? dim : ''}${clockTime(entry.time)}${colors ? reset : ''}`,
    `${color}${name}${color ? reset : ''}`,
  ];
  if (typeof entry.reqId === 'string') parts.push(`[${entry.reqId}]`);
  if (typeof entry.msg === 'string') parts.push(entry.msg);
  const stack = (entry.err as { stack?: unknown } | undefined)?.stack;
  for (const [key, value] of Object.entries(entry)) {
    if (placed.has(key)) continue;
    if (key === 'err' && typeof stack === 'string') {
      parts.push(`err=${showValue((entry.err as { message?: unknown }).message ?? '')}`);
      continue;
    }
    parts.push(`${colors ? dim : ''}${key}=${colors ? reset : ''}${showValue(value)}`);
  }
  const text = parts.join(' ');
  return typeof stack === 'string' ? `${text}\n    ${stack.split('\n').join('\n    ')}\n` : `${text}\n`;
}

/** A pino destination writing the pretty form of each line to `out` (stdout by default). */
export function prettyDestination(
  out: { write(text: string): unknown; isTTY?: boolean } = process.stdout,
): DestinationStream {
  const colors = out.isTTY === true;
  return {
    write(line: string) {
      out.write(formatPrettyLine(line, colors));
    },
  };
}
