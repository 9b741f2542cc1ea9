/**
 * The event feed's sockets: each admitted client gets the bus's events it may see (its `types=`, its
 * allowed assets, admin-only types for admins). Clients are indexed by types and allowed assets, so an event
 * touches only the clients it may concern; whom it reaches is decided when it is published, with the full rule.
 * Each event is serialized and framed once; the events published in one turn of the event loop are written
 * together, one write per client (the same bytes for every client that gets the same events), in order. A
 * client's queue is bounded by messages and bytes; one that reads too slowly is dropped with 4008, so the bus
 * and the other clients never wait for it. A ping each interval; a client that did not answer the last one is
 * cut. The stream ends (4001) when its key is revoked or expires, or its session ends. When its key changes,
 * the stream is checked again with the key's new principal (decision 0049): it closes (4403) when the key no
 * longer passes the route's checks (`events:subscribe`), and otherwise filters with the new one from the next
 * event on (fewer allowed assets, fewer events).
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

/** Whether `principal` may receive `event`: the one asset rule of protocol, and admin events for admins. */
function mayReceive(principal: Principal, event: HubEvent): boolean {
  if (adminEventTypes.has(event.type) && !isAdmin(principal)) return false;
  return eventVisible(principal.allowedAssets, event.data.asset_ids);
}

/** One turn of the event loop's events, framed, and the runs of them already joined for some client. */
interface Turn {
  frames: Buffer[];
  joined: Map<string, Buffer>;
}

interface Client {
  ws: WebSocket;
  /** The upgraded socket `ws` runs on; prepared frames are written to it directly. */
  socket: Duplex;
  principal: Principal;
  types: ReadonlySet<EventType> | null;
  /** Messages handed to the socket and not yet written out. */
  pending: number;
  /** Indexes into `turn`'s frames of the events this client gets, in order (empty when none). */
  queued: number[];
  turn: Turn | null;
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

export function createEventStreamServer(deps: EventStreamDeps): EventStreamServer {
  const limits: EventStreamLimits = { ...eventStreamLimits, closeGraceMs: 5000, ...deps.limits };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.inboundFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const clients = new Set<Client>();
  const index = createSubscriberIndex<Client>();
  let dropped = 0;
  let unsubscribe: (() => void) | null = null;
  let pingTimer: NodeJS.Timeout | null = null;

  // This turn's events and the clients with events queued; written out in a microtask.
  let turn: Turn = { frames: [], joined: new Map() };
  let waiting: Client[] = [];
  let flushQueued = false;

  function forget(client: Client): boolean {
    if (!clients.delete(client)) return false;
    index.remove(client);
    client.stopWatching();
    return true;
  }

  /** Stops delivery to the client at once; the close frame follows what it has queued, then the socket goes. */
  function end(client: Client, code: number, reason: string): void {
    if (!forget(client)) return;
    // Events it was given before it ended still go, ahead of the close frame (a slow client's do not).
    if (code !== eventStreamCloseCodes.slowClient && client.queued.length > 0) write(client);
    client.queued = [];
    client.turn = null;
    client.ws.close(code, reason);
    const grace = setTimeout(() => {
      client.ws.terminate();
    }, limits.closeGraceMs);
    grace.unref();
    client.ws.once('close', () => {
      clearTimeout(grace);
    });
  }

  /** The bytes of some of a turn's frames, joined once for every client that gets the same ones. */
  function bytesOf({ frames, joined }: Turn, queued: readonly number[]): Buffer {
    if (queued.length === 1) return frames[queued[0] ?? 0] ?? Buffer.alloc(0);
    const key = queued.length === frames.length ? '*' : queued.join(',');
    let bytes = joined.get(key);
    if (!bytes) {
      bytes = Buffer.concat(queued.map((i) => frames[i] ?? Buffer.alloc(0)));
      joined.set(key, bytes);
    }
    return bytes;
  }

  /** Hands `bytes` (`count` messages) to the socket, or drops the client (4008) when its queue would overflow. */
  function put(client: Client, bytes: Buffer, count: number): boolean {
    const { socket } = client;
    if (
      client.pending + count > limits.queuedMessages ||
      socket.writableLength + bytes.length > limits.queuedBytes
    ) {
      if (clients.has(client)) {
        dropped += 1;
        end(client, eventStreamCloseCodes.slowClient, 'slow client: queue full');
      }
      return false;
    }
    client.pending += count;
    socket.write(bytes, () => {
      client.pending -= count;
    });
    return true;
  }

  /** Writes the client's queued events: in one write, or one by one when together they exceed the byte bound. */
  function write(client: Client): void {
    const { queued, turn: of } = client;
    client.queued = [];
    client.turn = null;
    // A socket ws is closing (a close frame sent or received) takes no more data frames.
    if (of === null || client.ws.readyState !== client.ws.OPEN || client.socket.destroyed) return;
    const bytes = bytesOf(of, queued);
    if (client.socket.writableLength + bytes.length <= limits.queuedBytes) {
      put(client, bytes, queued.length);
      return;
    }
    // A burst larger than the bound: event by event, as the socket takes them (as each was written before
    // batching), so a reader that keeps up is not dropped for the size of one turn's events.
    for (const i of queued) {
      if (!put(client, of.frames[i] ?? Buffer.alloc(0), 1)) return;
    }
  }

  function flush(): void {
    flushQueued = false;
    const now = waiting;
    waiting = [];
    turn = { frames: [], joined: new Map() };
    for (const client of now) {
      if (clients.has(client) && client.queued.length > 0) write(client);
      client.queued = [];
      client.turn = null;
    }
  }

  function deliver(event: HubEvent): void {
    let frame = -1;
    index.forEachCandidate(event, (client) => {
      if (!mayReceive(client.principal, event)) return;
      if (frame < 0) {
        frame = turn.frames.length;
        turn.frames.push(
          textFrame(JSON.stringify({ id: event.id, type: event.type, ts: event.ts, data: event.data })),
        );
      }
      if (client.queued.length === 0) {
        waiting.push(client);
        client.turn = turn;
      }
      client.queued.push(frame);
    });
    if (frame >= 0 && !flushQueued) {
      flushQueued = true;
      queueMicrotask(flush);
    }
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
          pending: 0,
          queued: [],
          turn: null,
          answeredPing: true,
          stopWatching: () => undefined,
        };
        clients.add(client);
        index.add(client, { types: client.types, allowedAssets: principal.allowedAssets });
        client.stopWatching = watchPrincipal(
          deps.credentials,
          principal,
          () => {
            end(client, eventStreamCloseCodes.credentialEnded, 'credential ended');
          },
          (next) => {
            const refused = recheck(next);
            if (refused) end(client, eventStreamCloseCodes.accessWithdrawn, withdrawnReason(refused.message));
            // Filtered with what the key grants now, from the next event on.
            else {
              client.principal = next;
              index.add(client, { types: client.types, allowedAssets: next.allowedAssets });
            }
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
      wss.close();
    },
  };
}
