/**
 * The hub's live event feed (`GET /api/v2/events/stream`) as a subscription that keeps itself open: it
 * reconnects with exponential backoff and jitter after a drop (a restart, a slow-client close), and stops for
 * good when the hub says the credential ended (4001). Works in browsers (the session cookie rides along on the
 * hub's own origin) and in Node ≥ 22 (the global WebSocket, with the key in the Authorization header).
 * The feed is best effort: after a reconnect, reconcile through the API (`onStatus('open', { reconnected })`).
 */
import { eventStreamCloseCodes, type EventEnvelope, type EventType } from '@svc/protocol';

/** What the subscription needs of a WebSocket: the standard browser surface. */
export interface WebSocketLike {
  onopen: ((event: unknown) => void) | null;
  onmessage: ((event: { data: unknown }) => void) | null;
  onclose: ((event: { code: number; reason: string }) => void) | null;
  onerror: ((event: unknown) => void) | null;
  close(code?: number, reason?: string): void;
}

export type EventStreamStatus =
  | { state: 'connecting'; attempt: number }
  | { state: 'open'; reconnected: boolean }
  | { state: 'closed'; code: number; reason: string; retryInMs: number | null };

export interface EventSubscriptionOptions {
  /** The hub's origin (`https://hub:8443`); `''` in the console, which uses its own page's origin. */
  baseUrl: string;
  /** A bearer key (Node); without one the browser's session cookie is used. */
  apiKey?: string;
  /** Only these types (all when absent). */
  types?: readonly EventType[];
  onEvent(event: EventEnvelope): void;
  onStatus?(status: EventStreamStatus): void;
  /** Makes the socket; the global WebSocket by default (headers are passed where the runtime accepts them). */
  createSocket?(url: string, headers: Record<string, string>): WebSocketLike;
  /** First and longest wait between attempts (default 1 s and 30 s); doubled each failure, with jitter. */
  backoff?: { initialMs?: number; maxMs?: number };
  random?: () => number;
}

export interface EventSubscription {
  /** Closes the stream and stops reconnecting. */
  close(): void;
}

type WebSocketConstructor = new (url: string, init?: { headers: Record<string, string> }) => WebSocketLike;

function defaultSocket(url: string, headers: Record<string, string>): WebSocketLike {
  const Socket = (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
  if (!Socket) throw new Error('No WebSocket in this runtime: pass createSocket');
  // Browsers take no headers (the cookie goes by itself); Node's WebSocket takes them in its second argument.
  return Object.keys(headers).length === 0 ? new Socket(url) : new Socket(url, { headers });
}

/** The stream's ws:// or wss:// URL from the hub's origin (or the page's, for `''`). */
export function eventStreamUrl(baseUrl: string, types?: readonly EventType[]): string {
  const origin =
    baseUrl === '' ? ((globalThis as { location?: { origin: string } }).location?.origin ?? '') : baseUrl;
  const url = new URL('/api/v2/events/stream', origin);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (types && types.length > 0) url.searchParams.set('types', types.join(','));
  return url.toString();
}

export function subscribeEvents(options: EventSubscriptionOptions): EventSubscription {
  const initialMs = options.backoff?.initialMs ?? 1000;
  const maxMs = options.backoff?.maxMs ?? 30_000;
  const random = options.random ?? Math.random;
  const createSocket = (target: string, extra: Record<string, string>) =>
    options.createSocket ? options.createSocket(target, extra) : defaultSocket(target, extra);
  const headers: Record<string, string> = options.apiKey ? { Authorization: `Bearer ${options.apiKey}` } : {};
  const url = eventStreamUrl(options.baseUrl, options.types);
  let socket: WebSocketLike | null = null;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let failures = 0;
  let everOpened = false;
  let stopped = false;

  function connect(): void {
    options.onStatus?.({ state: 'connecting', attempt: failures + 1 });
    const ws = createSocket(url, headers);
    socket = ws;
    let opened = false;
    ws.onopen = () => {
      opened = true;
      failures = 0;
      options.onStatus?.({ state: 'open', reconnected: everOpened });
      everOpened = true;
    };
    ws.onmessage = (message) => {
      if (typeof message.data !== 'string') return;
      try {
        options.onEvent(JSON.parse(message.data) as EventEnvelope);
      } catch {
        // A message that is not JSON is not an event; the stream goes on.
      }
    };
    ws.onerror = () => undefined;
    ws.onclose = ({ code, reason }) => {
      socket = null;
      if (stopped) return;
      if (code === eventStreamCloseCodes.credentialEnded) {
        stopped = true;
        options.onStatus?.({ state: 'closed', code, reason, retryInMs: null });
        return;
      }
      if (!opened) failures += 1;
      const ceiling = Math.min(maxMs, initialMs * 2 ** Math.min(failures, 16));
      // Full jitter between half and all of the ceiling: many clients dropped at once do not return at once.
      const retryInMs = Math.round(ceiling / 2 + (random() * ceiling) / 2);
      options.onStatus?.({ state: 'closed', code, reason, retryInMs });
      timer = setTimeout(connect, retryInMs);
    };
  }

  connect();
  return {
    close() {
      stopped = true;
      if (timer) clearTimeout(timer);
      socket?.close(1000, 'closed by the client');
    },
  };
}
