/**
 * Whether a failure means PostgreSQL cannot be reached now (restarting, stopped, or the network to it down)
 * rather than a defect or a statement it refused: such a request is answered 503 `unavailable` with
 * Retry-After, not 500 (decision 0054). The pool reconnects by itself on a later query, so nothing else is to
 * be done: the client retries.
 */
import { HubError } from '../hub-error.js';

/**
 * SQLSTATEs of a server going away or not taking connections: 57P01 admin_shutdown (a fast or smart stop),
 * 57P02 crash_shutdown, 57P03 cannot_connect_now (starting up or shutting down), class 08 connection exceptions,
 * 53300 too_many_connections.
 */
const unreachableStates = new Set([
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '53300',
]);

/** What node-postgres says of a connection that broke or never came (it sets no code on these). */
const brokenConnection = [
  /^Connection terminated/,
  /is not queryable$/,
  /^timeout exceeded when trying to connect$/,
];

/** Errors of a socket that broke under a statement (Node's own codes), unreachable only on a database connection. */
const socketFailures = new Set([
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

export function isSocketFailure(error: unknown): boolean {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' && socketFailures.has(code);
}

const marked = new WeakSet<object>();

/** Marks an error of opening a pooled connection: whatever its cause, the database was not reached. */
export function markDatabaseUnreachable(error: unknown): unknown {
  if (typeof error === 'object' && error !== null) marked.add(error);
  return error;
}

export function isDatabaseUnreachable(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  if (marked.has(error)) return true;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && unreachableStates.has(code)) return true;
  return typeof message === 'string' && brokenConnection.some((pattern) => pattern.test(message));
}

/**
 * Seconds a client waits before retrying: a PostgreSQL restart takes a few seconds, and the pool tries again
 * on the first query after it, so 5 s usually finds it back without clients hammering a server that starts.
 */
const databaseRetryAfterSeconds = 5;

export function databaseUnavailable(): HubError {
  return new HubError(
    'unavailable',
    `The database cannot be reached right now (PostgreSQL is restarting or down); retry in ${String(databaseRetryAfterSeconds)} s.`,
    { headers: { 'Retry-After': String(databaseRetryAfterSeconds) } },
  );
}
