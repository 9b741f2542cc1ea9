/**
 * The cluster bus over NATS core (decisions 0038 and 0042): plain subjects under `svc.` (an optional prefix
 * before it), JSON payloads, requests answered on a per-bus inbox. Every message is signed (bus-auth.ts): its
 * headers name the sending node, and a receiver drops, counts and never answers what is not authentic, new and
 * on time. The connection is opened with `noEcho`, so what this process publishes never comes back to it; the
 * sender is checked as well. Requests and answers larger than the server's max_payload travel in chunks, each
 * signed (header `Svc-Chunk: i/n`), joined by the receiver up to 64 MiB. Publishes of one turn on one subject
 * leave as one signed batch (header `Svc-Batch: n`, decision 0083), delivered as n messages in order.
 *
 * A message id is accepted once per process: a process subscribes to each subject once (its handlers share
 * the subscription), and must not both subscribe and respond on one subject, or answer it twice.
 *
 * This file keeps the connection's lifecycle; nats-wire.ts the signing, chunks and drops, nats-requests.ts the
 * requests this process waits on, nats-subscriptions.ts the topics and responders.
 *
 * While NATS is down the bus says so (`status()`), publishes are dropped and requests fail at once with
 * ClusterUnavailableError: nothing is queued to be sent late. The client reconnects forever with a jittered
 * wait and the bus logs once per change of state, naming the server without its password.
 */
import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from '../logger.js';
import {
  ClusterUnavailableError,
  type ClusterBus,
  type ClusterBusStatus,
  createReconnectListeners,
} from './cluster-bus.js';
import { createBusAuth } from './bus-auth.js';
import { parseNatsUrl, type NatsTarget } from './nats-url.js';
import { createPendingRequests } from './nats-requests.js';
import { createResponders, createTopics } from './nats-subscriptions.js';
import { assertSubject, createBusWire, encode, maxClusterMessageBytes, messageOf } from './nats-wire.js';

export interface NatsClusterBusOptions {
  /** SVC_NATS_URL (nats:// or tls://, user:password allowed). */
  url: string;
  nodeId: string;
  /** Bus keys derived from the hub key (`busKeyInfo`): the current one first (it signs), then retired ones. */
  keys: readonly Buffer[];
  logger: Logger;
  /** A cluster name put before every subject (several clusters on one NATS server). */
  prefix?: string;
  /** Told of every message received and dropped as invalid (for the hub's counter), with the reason. */
  onDropped?: (reason: string) => void;
  /** The wait between connection attempts, jittered by up to half of it (2 s by default; tests shorten it). */
  reconnectWaitMs?: number;
  /** The clock of the signatures' time window (tests move it). */
  now?: () => number;
  /** How long a chunked request may take to arrive whole before its parts are dropped. */
  partialTimeoutMs?: number;
}

const defaultPartialTimeoutMs = 30_000;

/**
 * Opens the first connection, retrying with a jittered wait until it opens or the bus closes; later ones are
 * the client's own reconnects. `wake` ends the current wait (the bus closed).
 */
function connectUntilClosed(deps: {
  target: NatsTarget;
  nodeId: string;
  waitMs: number;
  logger: Logger;
  isClosed: () => boolean;
  onFailure: (reason: string) => void;
  onConnected: (conn: NatsConnection) => void;
}): { wake(): void } {
  const { target, waitMs, logger } = deps;
  let wake: (() => void) | null = null;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  const jittered = () => waitMs + Math.floor(Math.random() * (waitMs / 2));
  async function run(): Promise<void> {
    let failures = 0;
    while (!deps.isClosed()) {
      try {
        const conn = await connect({
          servers: target.server,
          ...(target.user === null ? {} : { user: target.user }),
          ...(target.pass === null ? {} : { pass: target.pass }),
          ...(target.tls ? { tls: {} } : {}),
          name: deps.nodeId,
          noEcho: true,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: waitMs,
          reconnectJitter: Math.floor(waitMs / 2),
          reconnectJitterTLS: Math.floor(waitMs / 2),
          timeout: 5000,
        });
        // close() may have run while the connection was being opened.
        if (deps.isClosed()) {
          await conn.close();
          return;
        }
        deps.onConnected(conn);
        return;
      } catch (error) {
        const reason = `cannot connect to NATS: ${messageOf(error)}`;
        if (failures === 0) logger.warn({ nats: target.redacted, reason }, 'cluster bus not connected');
        failures += 1;
        deps.onFailure(reason);
        await sleep(jittered());
      }
    }
  }
  void run();
  return {
    wake: () => {
      wake?.();
    },
  };
}

export function createNatsClusterBus(options: NatsClusterBusOptions): ClusterBus {
  const { nodeId, logger } = options;
  const parsed = parseNatsUrl(options.url);
  if (!parsed.ok) throw new Error(`SVC_NATS_URL ${parsed.problem}`);
  const target = parsed.target;
  const prefix = options.prefix ? `${options.prefix}.` : '';
  if (prefix !== '') assertSubject(options.prefix ?? '');
  const waitMs = options.reconnectWaitMs ?? 2000;
  const auth = createBusAuth({ nodeId, keys: options.keys, ...(options.now ? { now: options.now } : {}) });
  const wire = createBusWire({ auth, logger, onDropped: options.onDropped ?? (() => undefined) });

  let connection: NatsConnection | null = null;
  let state: ClusterBusStatus = { connected: false, reason: 'connecting to NATS' };
  let closed = false;

  const full = (subject: string) => `${prefix}${subject}`;
  const reconnected = createReconnectListeners((error) => {
    logger.error({ err: error }, 'a cluster bus reconnect listener failed');
  });
  const requests = createPendingRequests({ nodeId, wire });
  const topics = createTopics({ nodeId, wire, logger, full });
  const responders = createResponders({
    nodeId,
    wire,
    logger,
    full,
    partialTimeoutMs: options.partialTimeoutMs ?? defaultPartialTimeoutMs,
    connected: () => (state.connected ? connection : null),
  });

  function setDown(reason: string): void {
    const wasConnected = state.connected;
    state = { connected: false, reason };
    wire.discard();
    if (wasConnected) logger.warn({ nats: target.redacted, reason }, 'cluster bus disconnected');
    requests.failAll(reason);
  }

  function setUp(how: 'connected' | 'reconnected'): void {
    if (state.connected) return;
    state = { connected: true, reason: null };
    logger.info({ nats: target.redacted, node: nodeId }, `cluster bus ${how}`);
    // The client has sent its subscriptions again before it reports the reconnect.
    if (how === 'reconnected') reconnected.fire();
  }

  function attach(conn: NatsConnection): void {
    connection = conn;
    conn.subscribe(requests.inboxSubjects, {
      callback: (error, msg) => {
        if (!error) requests.onReply(msg);
      },
    });
    topics.attach(conn);
    responders.attach(conn);
    setUp('connected');
    void watch(conn);
  }

  async function watch(conn: NatsConnection): Promise<void> {
    const done = conn.closed().then((error) => {
      if (!closed) setDown(error ? `connection closed: ${error.message}` : 'connection closed');
    });
    for await (const event of conn.status()) {
      if (event.type === Events.Disconnect) setDown('disconnected from NATS');
      else if (event.type === Events.Reconnect) setUp('reconnected');
    }
    await done;
  }

  const connecting = connectUntilClosed({
    target,
    nodeId,
    waitMs,
    logger,
    isClosed: () => closed,
    onFailure: (reason) => {
      state = { connected: false, reason };
    },
    onConnected: attach,
  });

  return {
    nodeId,
    shared: true,

    publish(subject, data) {
      assertSubject(subject);
      const conn = connection;
      if (!conn || !state.connected) return;
      try {
        wire.publish(conn, full(subject), encode(data ?? null));
      } catch (error) {
        logger.warn({ err: error, subject }, 'cluster message not published');
      }
    },

    subscribe(subject, handler) {
      assertSubject(subject);
      return topics.add(connection, subject, handler);
    },

    request(subject, data, requestOptions) {
      assertSubject(subject);
      const conn = connection;
      if (closed) return Promise.reject(new ClusterUnavailableError('the bus is closed'));
      if (!conn || !state.connected) {
        return Promise.reject(new ClusterUnavailableError(state.reason ?? 'disconnected'));
      }
      const body = encode(data ?? null);
      if (body.length > maxClusterMessageBytes)
        return Promise.reject(new Error('the request is larger than 64 MiB'));
      return requests.send(conn, {
        subject,
        fullSubject: full(subject),
        body,
        timeoutMs: requestOptions.timeoutMs,
      });
    },

    respond(subject, responder, respondOptions) {
      assertSubject(subject);
      return responders.add(connection, subject, responder, respondOptions?.queue);
    },

    status() {
      return closed ? { connected: false, reason: 'the bus is closed' } : state;
    },

    onReconnected(listener) {
      return reconnected.add(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      connecting.wake();
      reconnected.clear();
      requests.failAll('the bus is closed');
      responders.clear();
      topics.clear();
      const conn = connection;
      connection = null;
      if (!conn) return;
      try {
        if (state.connected) {
          wire.flush();
          await conn.drain();
        } else await conn.close();
      } catch {
        await conn.close().catch(() => undefined);
      }
    },
  };
}
