/**
 * system.logs: the systemd journal through `journalctl -o json` (argv, no shell), or a plain log file whose
 * real path lies under the log root (/var/log). Filters: unit, since/until, priority and grep for the
 * journal; grep for files (a substring; case-insensitive unless it has a capital, like journalctl's).
 */
import { existsSync } from 'node:fs';
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { AgentRequestPayload, AgentRequestResult, LogEntry } from '@svc/protocol';
import {
  CommandMissingError,
  runCommand as defaultRunCommand,
  type RunCommand,
} from '../platform/run-command.js';
import { AgentError, agentErrorFromErrno } from './agent-error.js';
import { checkPath, openRegularFile } from './files.js';
import { openGuard, type PathGuard } from './protected-paths.js';
import { isValidServiceName } from './services.js';
import type { HandlerMap } from './types.js';

const defaultLogLimit = 200;
/** How much of the end of a log file is read at most. */
const fileWindowBytes = 16 * 1024 * 1024;
const messageChars = 8192;

type LogsResult = AgentRequestResult<'system.logs'>;

function text(value: unknown): string | null {
  if (typeof value === 'string') return value;
  // journald gives binary-unsafe fields as arrays of bytes.
  if (Array.isArray(value) && value.every((b) => typeof b === 'number'))
    return Buffer.from(value).toString('utf8');
  return null;
}

/** Lines of `journalctl -o json`. */
export function parseJournalJson(output: string): LogEntry[] {
  const entries: LogEntry[] = [];
  for (const line of output.split('\n')) {
    if (!line.trim()) continue;
    let record: Record<string, unknown>;
    try {
      record = JSON.parse(line) as Record<string, unknown>;
    } catch {
      continue;
    }
    const number = (value: unknown) => {
      const t = text(value);
      return t === null || t.trim() === '' ? NaN : Number(t);
    };
    const micros = number(record.__REALTIME_TIMESTAMP);
    const priority = number(record.PRIORITY);
    entries.push({
      ts: Number.isFinite(micros) && micros > 0 ? new Date(Math.floor(micros / 1000)).toISOString() : null,
      source: (
        text(record.SYSLOG_IDENTIFIER) ??
        text(record._SYSTEMD_UNIT) ??
        text(record._COMM) ??
        'journal'
      ).slice(0, 256),
      priority: Number.isInteger(priority) && priority >= 0 && priority <= 7 ? priority : null,
      message: (text(record.MESSAGE) ?? '').slice(0, messageChars),
    });
  }
  return entries;
}

function journalTime(value: string, field: string): string {
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) throw new AgentError('invalid_argument', `${field} is not an ISO 8601 time`);
  return `@${Math.floor(ms / 1000)}`;
}

/** The journalctl argument vector for a query. */
export function journalArgs(query: AgentRequestPayload<'system.logs'>): string[] {
  const args = ['-o', 'json', '--no-pager', '-q', '-n', String(query.limit ?? defaultLogLimit)];
  if (query.unit !== undefined) {
    if (!isValidServiceName(query.unit)) throw new AgentError('invalid_argument', 'invalid unit name');
    args.push('-u', query.unit);
  }
  if (query.since !== undefined) args.push('--since', journalTime(query.since, 'since'));
  if (query.until !== undefined) args.push('--until', journalTime(query.until, 'until'));
  if (query.priority !== undefined) args.push('-p', String(query.priority));
  if (query.grep !== undefined && query.grep !== '') args.push('--grep', query.grep);
  return args;
}

/** A matcher for the file grep: smart case, like journalctl. */
function grepMatcher(grep: string | undefined): (line: string) => boolean {
  if (!grep) return () => true;
  if (/[A-Z]/.test(grep)) return (line) => line.includes(grep);
  const lower = grep.toLowerCase();
  return (line) => line.toLowerCase().includes(lower);
}

export interface LogsOptions {
  runCommand?: RunCommand;
  /** Files may only be read under this directory (after resolving links). */
  logRoot?: string;
  isJournalAvailable?: () => boolean;
  /** Protected paths are never served, even from under the log root. */
  guard?: PathGuard;
}

export function createLogsHandlers(options: LogsOptions = {}): Pick<HandlerMap, 'system.logs'> {
  const run = options.runCommand ?? defaultRunCommand;
  const logRoot = options.logRoot ?? '/var/log';
  const guard = options.guard ?? openGuard;
  const isJournalAvailable =
    options.isJournalAvailable ??
    (() => existsSync('/run/systemd/journal') || existsSync('/var/log/journal'));

  async function readJournal(query: AgentRequestPayload<'system.logs'>): Promise<LogsResult | null> {
    const args = journalArgs(query);
    let result;
    try {
      result = await run('journalctl', args, { timeoutMs: 30_000, maxBufferBytes: 128 * 1024 * 1024 });
    } catch (error) {
      if (error instanceof CommandMissingError) return null;
      throw error;
    }
    if (result.code !== 0)
      throw new AgentError('failed', `journalctl failed: ${result.stderr.trim().slice(0, 500)}`);
    const limit = query.limit ?? defaultLogLimit;
    const entries = parseJournalJson(result.stdout).slice(-limit);
    return { source: 'journal', entries, truncated: entries.length >= limit };
  }

  function defaultLogFile(): string {
    for (const name of ['syslog', 'messages']) {
      const candidate = path.join(logRoot, name);
      if (existsSync(candidate)) return candidate;
    }
    throw new AgentError(
      'not_found',
      `no journal and no ${logRoot}/syslog or ${logRoot}/messages on this host; give a path`,
    );
  }

  async function readLogFile(query: AgentRequestPayload<'system.logs'>): Promise<LogsResult> {
    const requested = checkPath(query.path ?? defaultLogFile());
    if (/\.(gz|xz|bz2|zst|lz4)$/.test(requested))
      throw new AgentError('unsupported', 'compressed log files are not supported');
    let real: string;
    let root: string;
    try {
      root = await realpath(logRoot);
      real = await realpath(requested);
    } catch (error) {
      throw agentErrorFromErrno(error, requested);
    }
    // Authorize the real file, not the name: a link under the root may point anywhere.
    if (!real.startsWith(`${root}/`))
      throw new AgentError('invalid_path', `log files must be under ${logRoot}`);
    await guard.check(requested, [real]);
    // Only a regular file is opened: a FIFO or a device under the log root is refused unopened.
    const { handle, stats } = await openRegularFile(requested, real, guard);
    try {
      const window = Math.min(stats.size, fileWindowBytes);
      const buffer = Buffer.alloc(window);
      const { bytesRead } = await handle.read(buffer, 0, window, stats.size - window);
      const lines = buffer.subarray(0, bytesRead).toString('utf8').split('\n');
      if (window < stats.size) lines.shift(); // the first line is cut in the middle
      if (lines.at(-1) === '') lines.pop();
      const matches = lines.filter(grepMatcher(query.grep));
      const limit = query.limit ?? defaultLogLimit;
      const source = path.basename(requested);
      const entries = matches
        .slice(-limit)
        .map((message) => ({ ts: null, source, priority: null, message: message.slice(0, messageChars) }));
      return { source: 'file', entries, truncated: matches.length > limit || window < stats.size };
    } finally {
      await handle.close();
    }
  }

  async function logs(query: AgentRequestPayload<'system.logs'>): Promise<LogsResult> {
    const source = query.source ?? (query.path !== undefined ? 'file' : 'journal');
    if (source === 'file') return readLogFile(query);
    const journal = isJournalAvailable() ? await readJournal(query) : null;
    if (journal) return journal;
    if (query.source === 'journal') throw new AgentError('unsupported', 'this host has no systemd journal');
    return readLogFile(query);
  }

  return { 'system.logs': logs };
}
