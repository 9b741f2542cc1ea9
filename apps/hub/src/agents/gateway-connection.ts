/**
 * One agent connection's lifecycle in the gateway (gateway.ts): opening it, its hello and welcome, its
 * registration in the table of connected agents (the newest connection of an agent wins), and its retirement
 * and close. A protocol violation closes it with 1008, logged through the refusal log.
 */
import { performance } from 'node:perf_hooks';
import type { RawData, WebSocket } from 'ws';
import { agentProtocolVersion, type DiscoveryDefaults, type Hello, type Welcome } from '@svc/protocol';
import type { Telemetry } from '../platform/telemetry/telemetry.js';
import type { Clock } from '../platform/clock.js';
import { truncateForLog, type Logger } from '../platform/logger.js';
import type { RefusalLog } from '../platform/refusal-log.js';
import type { AgentSessionInfo } from './agent-gateway.js';
import { cleanHello } from './hello.js';
import type { Presence } from './presence.js';
import { createStreamTable, type StreamTable } from './streams.js';
import { agentFrames, firstProblem } from './gateway-frames.js';
import { failPending, type Pending } from './gateway-requests.js';

/** WebSocket close codes the hub uses. */
export const closeCodes = {
  policy: 1008,
  goingAway: 1001,
  internal: 1011,
  /** A newer connection of the same agent took over. */
  replaced: 4000,
} as const;

export interface Connection {
  ws: WebSocket;
  assetId: string;
  remoteAddress: string | null;
  openedAt: number;
  /** Set by a valid hello. */
  session: AgentSessionInfo | null;
  /** Welcome sent: requests may go out. */
  ready: boolean;
  /** The asset's registered connection (not replaced, not retired). */
  current: boolean;
  closing: boolean;
  pending: Map<string, Pending>;
  missedPongs: number;
  windowStart: number;
  /** Frames of the current second, all kinds (capped by the base limit plus each open stream's). */
  frames: number;
  /** Frames of the current second not paid by an open stream's own budget (capped by the base limit). */
  baseFrames: number;
  /** Reply allowances of requests that timed out, by id, oldest first. */
  late: Map<string, number>;
  /** Channel streams open on this connection (streams.ts). */
  streams: StreamTable;
  /** Gives back its admission slot (gateway-admission.ts): at the welcome, or when it is retired first. */
  admitted: () => void;
}

/** The gateway's connections and whether it still takes new ones. */
export interface ConnectionTable {
  /** Registered connections by asset (after hello). */
  connections: Map<string, Connection>;
  /** Every open connection, for keepalive. */
  all: Set<Connection>;
  awaitingHello: Set<Connection>;
  closed: boolean;
  /** Telling its agents to move: new ones are sent elsewhere. */
  moving: boolean;
}

interface LifecycleDeps {
  clock: Clock;
  logger: Logger;
  presence: Presence;
  refusals: RefusalLog;
  telemetry: Pick<Telemetry, 'agentFrame'>;
  heartbeatIntervalS: number;
  collectIntervalS: number;
  discoveryDefaults?: () => DiscoveryDefaults;
  onReadinessChange?: (assetId: string) => void;
  table: ConnectionTable;
}

type MessageHandler = (conn: Connection, data: RawData, isBinary: boolean) => void;

export interface ConnectionLifecycle {
  /** Takes a new socket into the table; its frames go to onMessage; `admitted` frees its admission slot. */
  open: (
    ws: WebSocket,
    assetId: string,
    remoteAddress: string | null,
    onMessage: MessageHandler,
    admitted: () => void,
  ) => void;
  onHello: (conn: Connection, id: string, payload: unknown) => void;
  /** Records that the agent was heard from. */
  touch: (conn: Connection) => void;
  send: (conn: Connection, frame: { v: number; type: string; id: string; payload: unknown }) => void;
  /** Takes a connection out of service: no new requests, pending ones fail, presence goes offline. */
  retire: (conn: Connection) => void;
  closeConnection: (conn: Connection, code: number, reason: string) => void;
  /** Closes with 1008, logged once per connection and through the refusal log. */
  violation: (conn: Connection, reason: string) => void;
}

export function createConnectionLifecycle(deps: LifecycleDeps): ConnectionLifecycle {
  const { clock, logger, presence, refusals, telemetry, table } = deps;

  function retire(conn: Connection): void {
    conn.admitted();
    table.awaitingHello.delete(conn);
    if (conn.ready) deps.onReadinessChange?.(conn.assetId);
    conn.ready = false;
    failPending(conn);
    conn.streams.closeAll('the agent disconnected');
    if (!conn.current) return;
    conn.current = false;
    if (table.connections.get(conn.assetId) === conn) table.connections.delete(conn.assetId);
    if (table.closed) return;
    presence.disconnected(conn.assetId).catch((error: unknown) => {
      logger.error({ err: error, asset_id: conn.assetId }, 'marking an agent offline failed');
    });
  }

  function closeConnection(conn: Connection, code: number, reason: string): void {
    if (conn.closing) return;
    conn.closing = true;
    retire(conn);
    try {
      conn.ws.close(code, reason.slice(0, 120));
    } catch {
      conn.ws.terminate();
    }
  }

  function violation(conn: Connection, reason: string): void {
    if (conn.closing) return;
    if (refusals.admit(conn.remoteAddress, 'agent violation')) {
      logger.warn(
        { asset_id: conn.assetId, remote_address: conn.remoteAddress, reason: truncateForLog(reason, 256) },
        'agent channel closed: protocol violation',
      );
    }
    closeConnection(conn, closeCodes.policy, reason);
  }

  function send(conn: Connection, frame: { v: number; type: string; id: string; payload: unknown }): void {
    const text = JSON.stringify(frame);
    telemetry.agentFrame('out', Buffer.byteLength(text));
    conn.ws.send(text, (error) => {
      if (error) logger.debug({ err: error, asset_id: conn.assetId }, 'sending to an agent failed');
    });
  }

  /** Registers a connection whose hello was valid, and welcomes it once presence has it online. */
  function register(conn: Connection, id: string, hello: Hello): void {
    const previous = table.connections.get(conn.assetId);
    if (previous && previous !== conn) {
      // One connection per agent: the newest wins (the old one may be a half-dead socket).
      previous.current = false;
      closeConnection(previous, closeCodes.replaced, 'replaced by a newer connection of this agent');
    }
    table.connections.set(conn.assetId, conn);
    conn.current = true;
    presence.connected(conn.assetId, hello, conn.remoteAddress).then(
      (exists) => {
        if (conn.closing) return;
        if (!exists) {
          violation(conn, 'the asset of this credential no longer exists');
          return;
        }
        const welcome: Welcome = {
          asset_id: conn.assetId,
          heartbeat_interval_s: deps.heartbeatIntervalS,
          collect_interval_s: deps.collectIntervalS,
          ...(deps.discoveryDefaults ? { discovery: deps.discoveryDefaults() } : {}),
        };
        send(conn, { v: agentProtocolVersion, type: 'welcome', id, payload: welcome });
        conn.admitted();
        conn.ready = true;
        deps.onReadinessChange?.(conn.assetId);
      },
      (error: unknown) => {
        logger.error({ err: error, asset_id: conn.assetId }, 'marking an agent online failed');
        closeConnection(conn, closeCodes.internal, 'internal error');
      },
    );
  }

  function onHello(conn: Connection, id: string, payload: unknown): void {
    if (conn.session) {
      violation(conn, 'hello sent twice');
      return;
    }
    if (!agentFrames.hello.Check(payload)) {
      violation(conn, `invalid hello: ${firstProblem(agentFrames.hello, payload)}`);
      return;
    }
    const hello = cleanHello(payload as Hello);
    if (hello.protocol !== agentProtocolVersion) {
      violation(conn, `protocol ${hello.protocol} is not supported; this hub speaks ${agentProtocolVersion}`);
      return;
    }
    table.awaitingHello.delete(conn);
    const now = clock.now();
    conn.session = {
      assetId: conn.assetId,
      connectedAt: now,
      lastSeenAt: now,
      remoteAddress: conn.remoteAddress,
      hello,
    };
    register(conn, id, hello);
  }

  function touch(conn: Connection): void {
    if (!conn.session) return;
    conn.session.lastSeenAt = clock.now();
    presence.seen(conn.assetId);
  }

  function open(
    ws: WebSocket,
    assetId: string,
    remoteAddress: string | null,
    onMessage: MessageHandler,
    admitted: () => void,
  ): void {
    const now = performance.now();
    const conn: Connection = {
      ws,
      assetId,
      remoteAddress,
      openedAt: now,
      session: null,
      ready: false,
      current: false,
      closing: false,
      pending: new Map(),
      missedPongs: 0,
      windowStart: now,
      frames: 0,
      baseFrames: 0,
      late: new Map(),
      admitted,
      streams: createStreamTable({
        assetId,
        now: () => performance.now(),
        send: (text) => {
          ws.send(text, (error) => {
            if (error) logger.debug({ err: error, asset_id: assetId }, 'sending to an agent failed');
          });
        },
        violation: (reason) => {
          violation(conn, reason);
        },
      }),
    };
    table.all.add(conn);
    table.awaitingHello.add(conn);
    ws.on('message', (data, isBinary) => {
      try {
        onMessage(conn, data, isBinary);
      } catch (error) {
        logger.error({ err: error, asset_id: assetId }, 'agent frame handling failed');
        closeConnection(conn, closeCodes.internal, 'internal error');
      }
    });
    ws.on('pong', () => {
      conn.missedPongs = 0;
    });
    ws.on('error', (error) => {
      // ws closes the socket itself (e.g. 1009 for a frame over maxPayload); 'close' follows.
      logger.warn({ err: error, asset_id: assetId }, 'agent channel error');
    });
    ws.on('close', () => {
      table.all.delete(conn);
      conn.closing = true;
      retire(conn);
    });
  }

  return { open, onHello, touch, send, retire, closeConnection, violation };
}
