/**
 * The event feed's sockets: each admitted client gets the bus's events it may see (its `types=`, its
 * allowed assets, admin-only types for admins). Clients that would get exactly the same events (same
 * `types=`, same allowed assets, both admins or not) form one audience; audiences are indexed by types and
 * allowed assets, so an event is matched once per audience it may concern, not once per client, and whom it
 * reaches is decided when it is published, with the full rule. Each event is serialized and framed once;
 * events are written in batches, one write per client (the same bytes for a whole audience), in order: an idle
 * stream's events at the end of their turn, a busy one's no sooner than the last flush took again, so the
 * writes per client and second stay bounded however many events come (decision 0086). A client's queue is
 * bounded by messages and bytes; one that reads too slowly is dropped with 4008, so the bus and the other
 * clients never wait for it. A ping each interval; a client that did not answer the last one is cut. The
 * stream ends (4001) when its key is revoked or expires, or its session ends. When its key changes, the stream
 * is checked again with the key's new principal (decision 0049): it closes (4403) when the key no longer
 * passes the route's checks (`events:subscribe`), and otherwise filters with the new one from the next event on
 * (fewer allowed assets, fewer events).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { eventStreamCloseCodes, eventStreamLimits, eventVisible, type EventType } from '@svc/protocol';
import { WebSocketServer, type WebSocket } from 'ws';
import { isAdmin, type Principal } from '../../access/principal.js';
import { watchPrincipal, type CredentialLifetime } from '../../http/credential-lifetime.js';
import { withdrawnReason, type UpgradeRecheck } from '../../http/upgrade.js';
import type { EventBus, HubEvent } from '../../platform/event-bus.js';
import { createSubscriberIndex } from './subscriber-index.js';
import { textFrame } from './text-frame.js';

export interface EventStreamLimits {
  queuedMessages: number;
  queuedBytes: number;
  inboundFrameBytes: number;
  pingIntervalMs: number;
  /** How long a dropped client has to read its close frame before its socket is destroyed. */
  closeGraceMs: number;
}

/** Events about the hub's own administration (keys, users, settings, enrollment): admins only. */
const adminEventTypes: ReadonlySet<EventType> = new Set<EventType>([
  'api_key.created',
  'api_key.updated',
  'api_key.deleted',
  'user.created',
  'user.updated',
  'settings.changed',
  'enrollment_token.created',
  'enrollment_token.revoked',
]);

/**
 * Clients that receive exactly the same events: the same `types=`, the same allowed assets, both admins or
 * both not (all that decides what a client gets). An event is matched once per audience, not once per client.
 */
interface Audience {
  key: string;
  types: ReadonlySet<EventType> | null;
  allowedAssets: ReadonlySet<string> | null;
  admin: boolean;
  members: Set<Client>;
  /** Indexes into the batch's frames of the events this audience gets, in order (empty when none). */
  queued: number[];
}

/** Whether `audience` may receive `event`: the one asset rule of protocol, and admin events for admins. */
function mayReceive(audience: Audience, event: HubEvent): boolean {
  if (adminEventTypes.has(event.type) && !audience.admin) return false;
  return eventVisible(audience.allowedAssets, event.data.asset_ids);
}

function audienceKey(admin: boolean, types: ReadonlySet<string> | null, assets: ReadonlySet<string> | null) {
  const list = (set: ReadonlySet<string> | null) => (set === null ? '*' : [...set].sort().join(','));
  return `${admin ? 'admin' : 'user'}|${list(types)}|${list(assets)}`;
}

/** The events published since the last flush, framed, and the runs of them already joined for some audience. */
interface Batch {
  frames: Buffer[];
  joined: Map<string, Buffer>;
}

interface Client {
  ws: WebSocket;
  /** The upgraded socket `ws` runs on; prepared frames are written to it directly. */
  socket: Duplex;
  principal: Principal;
  types: ReadonlySet<EventType> | null;
  audience: Audience | null;
  /** Of its audience's queued events, the ones from this index on are its own (it joined after the others). */
  from: number;
  /** Messages handed to the socket and not yet written out. */
  pending: number;
  answeredPing: boolean;
  stopWatching: () => void;
}

export interface EventStreamServer {
  /**
   * Completes the handshake for an admitted caller (the guard and the `types=` check have run); `recheck` runs
   * the route's checks again when the caller's key changes.
   */
  accept(
    principal: Principal,
    types: readonly EventType[] | null,
    request: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    recheck: UpgradeRecheck,
  ): void;
  /** Clients connected now. */
  clientCount(): number;
  /** Clients dropped for reading too slowly since the start. */
  droppedCount(): number;
  start(): void;
  /** Closes every stream (1001) and stops the ping timer. */
  close(): void;
}

export interface EventStreamDeps {
  events: Pick<EventBus, 'subscribe'>;
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>;
  limits?: Partial<EventStreamLimits>;
}

/**
 * After a flush that took `d` ms, the next one starts no sooner than `d` later, and never more than this
 * later: writing to clients takes at most about half of the hub's time, and the busier it is, the more events
 * each write carries. An idle stream's first event is written at the end of its turn.
 */
const flushGapMaxMs = 50;

export function createEventStreamServer(deps: EventStreamDeps): EventStreamServer {
  const limits: EventStreamLimits = { ...eventStreamLimits, closeGraceMs: 5000, ...deps.limits };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.inboundFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const clients = new Set<Client>();
  const audiences = new Map<string, Audience>();
  const index = createSubscriberIndex<Audience>();
  let dropped = 0;
  let unsubscribe: (() => void) | null = null;
  let pingTimer: NodeJS.Timeout | null = null;
  // The events since the last flush and the audiences with events queued.
  let batch: Batch = { frames: [], joined: new Map() };
  let waiting: Audience[] = [];
  /** Cancels the flush scheduled, or null when none is. */
  let cancelFlush: (() => void) | null = null;
  /** performance.now() before which the next flush does not start. */
  let nextFlushAt = 0;

  function join(client: Client): void {
    const admin = isAdmin(client.principal);
    const { allowedAssets } = client.principal;
    const key = audienceKey(admin, client.types, allowedAssets);
    let audience = audiences.get(key);
    if (!audience) {
      audience = { key, types: client.types, allowedAssets, admin, members: new Set(), queued: [] };
      audiences.set(key, audience);
      index.add(audience, { types: client.types, allowedAssets });
    }
    audience.members.add(client);
    client.audience = audience;
    // Only the events published from now on are its.
    client.from = audience.queued.length;
  }

  function leave(client: Client): void {
    const { audience } = client;
    if (!audience) return;
    client.audience = null;
    audience.members.delete(client);
    if (audience.members.size > 0) return;
    // A flush still pending for it writes to no one.
    index.remove(audience);
    audiences.delete(audience.key);
  }

  /** The client's events queued in its audience and not yet written. */
  function queuedFor(client: Client): number[] {
    return client.audience ? client.audience.queued.slice(client.from) : [];
  }

  function forget(client: Client): boolean {
    if (!clients.delete(client)) return false;
    leave(client);
    client.stopWatching();
    return true;
  }

  /** Stops delivery to the client at once; the close frame follows what it has queued, then the socket goes. */
  function end(client: Client, code: number, reason: string): void {
    if (!clients.has(client)) return;
    // Events it was given before it ended still go, ahead of the close frame (a slow client's do not).
    const rest = code === eventStreamCloseCodes.slowClient ? [] : queuedFor(client);
    forget(client);
    if (rest.length > 0) write(client, batch, rest);
    client.ws.close(code, reason);
    const grace = setTimeout(() => {
      client.ws.terminate();
    }, limits.closeGraceMs);
    grace.unref();
    client.ws.once('close', () => {
      clearTimeout(grace);
    });
  }

  /** The bytes of some of a batch's frames, joined once for every audience that gets the same ones. */
  function bytesOf({ frames, joined }: Batch, queued: readonly number[]): Buffer {
    if (queued.length === 1) return frames[queued[0] ?? 0] ?? Buffer.alloc(0);
    const key = queued.length === frames.length ? '*' : queued.join(',');
    let bytes = joined.get(key);
    if (!bytes) {
      bytes = Buffer.concat(queued.map((i) => frames[i] ?? Buffer.alloc(0)));
      joined.set(key, bytes);
    }
    return bytes;
  }

  /**
   * Hands `bytes` (`count` messages) to the socket, or drops the client (4008) when its queue would overflow:
   * more than the byte bound not yet taken by the socket, or more than the message bound waiting in writes the
   * socket has not finished (a write it takes at once leaves nothing waiting).
   */
  function put(client: Client, bytes: Buffer, count: number): boolean {
    const { socket } = client;
    if (
      (client.pending > 0 && client.pending + count > limits.queuedMessages) ||
      socket.writableLength + bytes.length > limits.queuedBytes
    ) {
      if (clients.has(client)) {
        dropped += 1;
        end(client, eventStreamCloseCodes.slowClient, 'slow client: queue full');
      }
      return false;
    }
    let waiting = 0;
    // Never called before write returns: the stream defers the callback of a write done at once.
    socket.write(bytes, () => {
      client.pending -= waiting;
    });
    if (socket.writableLength > 0) {
      waiting = count;
      client.pending += count;
    }
    return true;
  }

  /**
   * Writes some of a batch's events to the client: in one write, or, when together they exceed the byte bound,
   * in runs that fit in what the socket has room for, so a reader that keeps up is not dropped for the size of
   * one batch and a large batch is still a few writes, not one per event.
   */
  function write(client: Client, of: Batch, queued: readonly number[]): void {
    const { socket } = client;
    // A socket ws is closing (a close frame sent or received) takes no more data frames.
    if (client.ws.readyState !== client.ws.OPEN || socket.destroyed) return;
    const bytes = bytesOf(of, queued);
    if (socket.writableLength + bytes.length <= limits.queuedBytes) {
      put(client, bytes, queued.length);
      return;
    }
    for (let start = 0; start < queued.length;) {
      const room = limits.queuedBytes - socket.writableLength;
      let end = start;
      for (let size = 0; end < queued.length; end += 1) {
        size += of.frames[queued[end] ?? 0]?.length ?? 0;
        if (size > room) break;
      }
      // Not even the next event fits: put drops the client.
      const run = queued.slice(start, Math.max(end, start + 1));
      if (!put(client, bytesOf(of, run), run.length)) return;
      start += run.length;
    }
  }

  function flush(): void {
    cancelFlush = null;
    const started = performance.now();
    const now = waiting;
    const of = batch;
    waiting = [];
    batch = { frames: [], joined: new Map() };
    for (const audience of now) {
      const { queued } = audience;
      audience.queued = [];
      for (const client of [...audience.members]) {
        const { from } = client;
        client.from = 0;
        if (from === 0) write(client, of, queued);
        else if (from < queued.length) write(client, of, queued.slice(from));
      }
    }
    const ended = performance.now();
    nextFlushAt = ended + Math.min(flushGapMaxMs, ended - started);
  }

  function scheduleFlush(): void {
    if (cancelFlush) return;
    const wait = nextFlushAt - performance.now();
    if (wait < 1) {
      const immediate = setImmediate(flush);
      cancelFlush = () => {
        clearImmediate(immediate);
      };
    } else {
      const timer = setTimeout(flush, wait);
      cancelFlush = () => {
        clearTimeout(timer);
      };
    }
  }

  function deliver(event: HubEvent): void {
    let frame = -1;
    index.forEachCandidate(event, (audience) => {
      if (!mayReceive(audience, event)) return;
      if (frame < 0) {
        frame = batch.frames.length;
        batch.frames.push(
          textFrame(JSON.stringify({ id: event.id, type: event.type, ts: event.ts, data: event.data })),
        );
      }
      if (audience.queued.length === 0) waiting.push(audience);
      audience.queued.push(frame);
    });
    if (frame >= 0) scheduleFlush();
  }

  function ping(): void {
    for (const client of [...clients]) {
      if (!client.answeredPing) {
        forget(client);
        client.ws.terminate();
        continue;
      }
      client.answeredPing = false;
      client.ws.ping();
    }
  }

  return {
    accept(principal, types, request, socket, head, recheck) {
      wss.handleUpgrade(request, socket, head, (ws) => {
        const client: Client = {
          ws,
          socket,
          principal,
          types: types === null ? null : new Set(types),
          audience: null,
          from: 0,
          pending: 0,
          answeredPing: true,
          stopWatching: () => undefined,
        };
        clients.add(client);
        join(client);
        client.stopWatching = watchPrincipal(
          deps.credentials,
          principal,
          () => {
            end(client, eventStreamCloseCodes.credentialEnded, 'credential ended');
          },
          (next) => {
            const refused = recheck(next);
            if (refused) {
              end(client, eventStreamCloseCodes.accessWithdrawn, withdrawnReason(refused.message));
              return;
            }
            client.principal = next;
            if (client.audience?.key === audienceKey(isAdmin(next), client.types, next.allowedAssets)) return;
            // What it was given under the old key goes now; filtered with what the key grants now from the
            // next event on.
            const rest = queuedFor(client);
            leave(client);
            if (rest.length > 0) write(client, batch, rest);
            join(client);
          },
        );
        ws.on('pong', () => {
          client.answeredPing = true;
        });
        // Frames over maxPayload make ws close with 1009 itself; the socket's errors end in 'close' too.
        ws.on('error', () => undefined);
        ws.on('close', () => {
          forget(client);
        });
      });
    },
    clientCount: () => clients.size,
    droppedCount: () => dropped,
    start() {
      // Every process's clients see every process's events.
      unsubscribe = deps.events.subscribe(deliver, { reach: 'cluster' });
      pingTimer = setInterval(ping, limits.pingIntervalMs);
      pingTimer.unref();
    },
    close() {
      unsubscribe?.();
      unsubscribe = null;
      if (pingTimer) clearInterval(pingTimer);
      pingTimer = null;
      for (const client of [...clients]) end(client, 1001, 'hub shutting down');
      cancelFlush?.();
      cancelFlush = null;
      wss.close();
    },
  };
}
