/**
 * The event feed's sockets: each admitted client gets the bus's events it may see (its `types=`, its
 * allowed assets, admin-only types for admins), serialized once per event and written to every client. A
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

interface Client {
  ws: WebSocket;
  principal: Principal;
  types: ReadonlySet<EventType> | null;
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

export function createEventStreamServer(deps: EventStreamDeps): EventStreamServer {
  const limits: EventStreamLimits = { ...eventStreamLimits, closeGraceMs: 5000, ...deps.limits };
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: limits.inboundFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const clients = new Set<Client>();
  let dropped = 0;
  let unsubscribe: (() => void) | null = null;
  let pingTimer: NodeJS.Timeout | null = null;

  /** Stops delivery to the client at once; the close frame follows what it has queued, then the socket goes. */
  function end(client: Client, code: number, reason: string): void {
    if (!clients.delete(client)) return;
    client.stopWatching();
    client.ws.close(code, reason);
    const grace = setTimeout(() => {
      client.ws.terminate();
    }, limits.closeGraceMs);
    grace.unref();
    client.ws.once('close', () => {
      clearTimeout(grace);
    });
  }

  function send(client: Client, text: string): void {
    const { ws } = client;
    if (client.pending >= limits.queuedMessages || ws.bufferedAmount + text.length > limits.queuedBytes) {
      dropped += 1;
      end(client, eventStreamCloseCodes.slowClient, 'slow client: queue full');
      return;
    }
    client.pending += 1;
    ws.send(text, () => {
      client.pending -= 1;
    });
  }

  function deliver(event: HubEvent): void {
    let text: string | null = null;
    for (const client of [...clients]) {
      if (client.types !== null && !client.types.has(event.type)) continue;
      if (!mayReceive(client.principal, event)) continue;
      text ??= JSON.stringify({ id: event.id, type: event.type, ts: event.ts, data: event.data });
      send(client, text);
    }
  }

  function ping(): void {
    for (const client of [...clients]) {
      if (!client.answeredPing) {
        clients.delete(client);
        client.stopWatching();
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
          principal,
          types: types === null ? null : new Set(types),
          pending: 0,
          answeredPing: true,
          stopWatching: () => undefined,
        };
        clients.add(client);
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
            else client.principal = next;
          },
        );
        ws.on('pong', () => {
          client.answeredPing = true;
        });
        // Frames over maxPayload make ws close with 1009 itself; the socket's errors end in 'close' too.
        ws.on('error', () => undefined);
        ws.on('close', () => {
          clients.delete(client);
          client.stopWatching();
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
