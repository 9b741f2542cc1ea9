/**
 * The cluster bus over NATS core (decision 0038): plain subjects under `svc.` (an optional prefix before it),
 * JSON envelopes `{v, from, data}` that name the sending node, requests answered on a per-bus inbox. The
 * connection is opened with `noEcho`, so what this process publishes never comes back to it; the sender id in
 * the envelope is checked as well. Answers larger than the server's max_payload travel in chunks (headers
 * `Svc-Chunk: i/n` and `Svc-From`) and are joined by the requester, up to 64 MiB.
 *
 * While NATS is down the bus says so (`status()`), publishes are dropped and requests fail at once with
 * ClusterUnavailableError: nothing is queued to be sent late. The client reconnects forever with a jittered
 * wait and the bus logs once per change of state, naming the server without its password.
 */
import {
  connect,
  Events,
  headers,
  createInbox,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from 'nats';
import type { Logger } from '../logger.js';
import {
  ClusterNoResponderError,
  ClusterRemoteError,
  ClusterTimeoutError,
  ClusterUnavailableError,
  type ClusterBus,
  type ClusterBusStatus,
  type ClusterHandler,
  type ClusterResponder,
} from './cluster-bus.js';
import { parseNatsUrl } from './nats-url.js';

export interface NatsClusterBusOptions {
  /** SVC_NATS_URL (nats:// or tls://, user:password allowed). */
  url: string;
  nodeId: string;
  logger: Logger;
  /** A cluster name put before every subject (several clusters on one NATS server). */
  prefix?: string;
  /** Told of every message received and dropped as invalid (for the hub's counter). */
  onDropped?: (reason: string) => void;
  /** The wait between connection attempts, jittered by up to half of it (2 s by default; tests shorten it). */
  reconnectWaitMs?: number;
}

/** Answers above this are refused, by the responder and by the requester that joins the chunks. */
const maxClusterAnswerBytes = 64 * 1024 * 1024;
/** Room left in each chunk for the headers and the protocol line. */
const chunkOverheadBytes = 4096;
const defaultMaxPayload = 1024 * 1024;
const maxRemoteMessageChars = 1024;
const subjectPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const nodeIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;
const chunkPattern = /^(\d{1,7})\/(\d{1,7})$/;

interface Envelope {
  from: string;
  data: unknown;
}

type Reply = { from: string; ok: true; data: unknown } | { from: string; ok: false; error: string };

interface PendingRequest {
  subject: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The first chunked answer being joined (a request without a queue group may get several answers). */
  chunks: { from: string; parts: (Uint8Array | undefined)[]; received: number; bytes: number } | null;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return undefined;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readEnvelope(bytes: Uint8Array): Envelope | null {
  const value = parseJson(bytes);
  if (!isRecord(value) || value.v !== 1 || !Object.hasOwn(value, 'data')) return null;
  if (typeof value.from !== 'string' || !nodeIdPattern.test(value.from)) return null;
  return { from: value.from, data: value.data };
}

function readReply(bytes: Uint8Array): Reply | null {
  const value = parseJson(bytes);
  if (!isRecord(value) || value.v !== 1) return null;
  if (typeof value.from !== 'string' || !nodeIdPattern.test(value.from)) return null;
  if (value.ok === true && Object.hasOwn(value, 'data'))
    return { from: value.from, ok: true, data: value.data };
  if (value.ok === false && typeof value.error === 'string') {
    return { from: value.from, ok: false, error: value.error.slice(0, maxRemoteMessageChars) };
  }
  return null;
}

function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, maxRemoteMessageChars);
}

function assertSubject(subject: string): void {
  if (!subjectPattern.test(subject)) throw new Error(`invalid cluster subject ${JSON.stringify(subject)}`);
}

function chunkOf(hdrs: MsgHdrs | undefined): { index: number; count: number; from: string } | null {
  if (!hdrs?.has('Svc-Chunk')) return null;
  const match = chunkPattern.exec(hdrs.get('Svc-Chunk'));
  const from = hdrs.get('Svc-From');
  if (!match || !nodeIdPattern.test(from)) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 2 || index >= count) return null;
  return { index, count, from };
}

export function createNatsClusterBus(options: NatsClusterBusOptions): ClusterBus {
  const { nodeId, logger } = options;
  const parsed = parseNatsUrl(options.url);
  if (!parsed.ok) throw new Error(`SVC_NATS_URL ${parsed.problem}`);
  const target = parsed.target;
  const prefix = options.prefix ? `${options.prefix}.` : '';
  if (prefix !== '') assertSubject(options.prefix ?? '');
  const waitMs = options.reconnectWaitMs ?? 2000;
  const onDropped = options.onDropped ?? (() => undefined);
  const inbox = createInbox(`_INBOX_SVC.${nodeId.replace(/\./g, '_')}`);

  let connection: NatsConnection | null = null;
  let state: ClusterBusStatus = { connected: false, reason: 'connecting to NATS' };
  let closed = false;
  let wake: (() => void) | null = null;
  let sequence = 0;
  const pending = new Map<string, PendingRequest>();
  const topics = new Map<string, { handlers: Set<ClusterHandler>; sub: Subscription | null }>();
  const answerers = new Set<{
    subject: string;
    responder: ClusterResponder;
    queue: string | undefined;
    sub: Subscription | null;
  }>();

  const full = (subject: string) => `${prefix}${subject}`;

  function dropped(reason: string): void {
    onDropped(reason);
  }

  function settle(id: string, outcome: { value: unknown } | { error: Error }): void {
    const request = pending.get(id);
    if (!request) return;
    pending.delete(id);
    clearTimeout(request.timer);
    if ('error' in outcome) request.reject(outcome.error);
    else request.resolve(outcome.value);
  }

  function failPending(reason: string): void {
    for (const id of [...pending.keys()]) settle(id, { error: new ClusterUnavailableError(reason) });
  }

  function setDown(reason: string): void {
    const wasConnected = state.connected;
    state = { connected: false, reason };
    if (wasConnected) logger.warn({ nats: target.redacted, reason }, 'cluster bus disconnected');
    failPending(reason);
  }

  function setUp(how: 'connected' | 'reconnected'): void {
    if (state.connected) return;
    state = { connected: true, reason: null };
    logger.info({ nats: target.redacted, node: nodeId }, `cluster bus ${how}`);
  }

  function onTopicMessage(subject: string, msg: Msg): void {
    const envelope = readEnvelope(msg.data);
    if (!envelope) {
      dropped('envelope');
      return;
    }
    if (envelope.from === nodeId) return;
    for (const handler of topics.get(subject)?.handlers ?? []) {
      try {
        handler(envelope.data, { from: envelope.from });
      } catch (error) {
        logger.error({ err: error, subject }, 'cluster message handler failed');
      }
    }
  }

  function sendReply(reply: string, body: Uint8Array): void {
    const conn = connection;
    if (!conn || !state.connected) return;
    const limit = Math.max(1024, (conn.info?.max_payload ?? defaultMaxPayload) - chunkOverheadBytes);
    try {
      if (body.length <= limit) {
        conn.publish(reply, body);
        return;
      }
      const count = Math.ceil(body.length / limit);
      for (let index = 0; index < count; index++) {
        const hdrs = headers();
        hdrs.set('Svc-Chunk', `${index}/${count}`);
        hdrs.set('Svc-From', nodeId);
        conn.publish(reply, body.subarray(index * limit, (index + 1) * limit), { headers: hdrs });
      }
    } catch (error) {
      logger.warn({ err: error }, 'cluster answer not sent');
    }
  }

  async function answer(responder: ClusterResponder, reply: string, envelope: Envelope): Promise<void> {
    let body: Uint8Array;
    try {
      const value = await responder(envelope.data, { from: envelope.from });
      body = encode({ v: 1, from: nodeId, ok: true, data: value ?? null });
    } catch (error) {
      body = encode({ v: 1, from: nodeId, ok: false, error: messageOf(error) });
    }
    if (body.length > maxClusterAnswerBytes) {
      body = encode({ v: 1, from: nodeId, ok: false, error: 'the answer is larger than 64 MiB' });
    }
    sendReply(reply, body);
  }

  function onRequestMessage(entry: { responder: ClusterResponder }, msg: Msg): void {
    const envelope = readEnvelope(msg.data);
    if (!envelope || !msg.reply) {
      dropped('request');
      return;
    }
    if (envelope.from === nodeId) return;
    void answer(entry.responder, msg.reply, envelope);
  }

  function onReplyMessage(msg: Msg): void {
    const id = msg.subject.slice(inbox.length + 1);
    const request = pending.get(id);
    // Late answers, and the second answer of a request without a queue group, have nothing waiting.
    if (!request) return;
    const hdrs = msg.headers;
    if (hdrs && hdrs.code === 503) {
      settle(id, { error: new ClusterNoResponderError(request.subject) });
      return;
    }
    const chunk = chunkOf(hdrs);
    if (hdrs?.has('Svc-Chunk') && !chunk) {
      dropped('chunk');
      return;
    }
    if (!chunk) {
      finishReply(id, request, msg.data);
      return;
    }
    request.chunks ??= {
      from: chunk.from,
      parts: new Array<Uint8Array | undefined>(chunk.count),
      received: 0,
      bytes: 0,
    };
    const joining = request.chunks;
    if (joining.from !== chunk.from) return;
    if (joining.parts.length !== chunk.count || joining.parts[chunk.index] !== undefined) {
      dropped('chunk');
      return;
    }
    joining.parts[chunk.index] = msg.data;
    joining.received += 1;
    joining.bytes += msg.data.length;
    if (joining.bytes > maxClusterAnswerBytes) {
      settle(id, { error: new ClusterRemoteError(request.subject, 'the answer is larger than 64 MiB') });
      return;
    }
    if (joining.received < chunk.count) return;
    const whole = Buffer.concat(joining.parts.map((part) => part ?? new Uint8Array()));
    finishReply(id, request, whole);
  }

  function finishReply(id: string, request: PendingRequest, bytes: Uint8Array): void {
    const reply = readReply(bytes);
    if (!reply) {
      // Not an answer: the request waits for a valid one or its timeout.
      request.chunks = null;
      dropped('reply');
      return;
    }
    if (reply.ok) settle(id, { value: reply.data });
    else settle(id, { error: new ClusterRemoteError(request.subject, reply.error) });
  }

  function subscribeTopic(conn: NatsConnection, subject: string): Subscription {
    return conn.subscribe(full(subject), {
      callback: (error, msg) => {
        if (!error) onTopicMessage(subject, msg);
      },
    });
  }

  function subscribeAnswerer(
    conn: NatsConnection,
    entry: { subject: string; responder: ClusterResponder; queue: string | undefined },
  ): Subscription {
    return conn.subscribe(full(entry.subject), {
      ...(entry.queue === undefined ? {} : { queue: entry.queue }),
      callback: (error, msg) => {
        if (!error) onRequestMessage(entry, msg);
      },
    });
  }

  function attach(conn: NatsConnection): void {
    connection = conn;
    conn.subscribe(`${inbox}.*`, {
      callback: (error, msg) => {
        if (!error) onReplyMessage(msg);
      },
    });
    for (const [subject, topic] of topics) topic.sub = subscribeTopic(conn, subject);
    for (const entry of answerers) entry.sub = subscribeAnswerer(conn, entry);
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

  function sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  const isClosed = () => closed;
  const jittered = () => waitMs + Math.floor(Math.random() * (waitMs / 2));

  // Until close: the first connection is retried here, later ones by the client itself.
  async function connectUntilClosed(): Promise<void> {
    let failures = 0;
    while (!closed) {
      try {
        const conn = await connect({
          servers: target.server,
          ...(target.user === null ? {} : { user: target.user }),
          ...(target.pass === null ? {} : { pass: target.pass }),
          ...(target.tls ? { tls: {} } : {}),
          name: nodeId,
          noEcho: true,
          reconnect: true,
          maxReconnectAttempts: -1,
          reconnectTimeWait: waitMs,
          reconnectJitter: Math.floor(waitMs / 2),
          reconnectJitterTLS: Math.floor(waitMs / 2),
          timeout: 5000,
        });
        // close() may have run while the connection was being opened.
        if (isClosed()) {
          await conn.close();
          return;
        }
        attach(conn);
        return;
      } catch (error) {
        const reason = `cannot connect to NATS: ${messageOf(error)}`;
        if (failures === 0) logger.warn({ nats: target.redacted, reason }, 'cluster bus not connected');
        failures += 1;
        state = { connected: false, reason };
        await sleep(jittered());
      }
    }
  }
  void connectUntilClosed();

  return {
    nodeId,
    shared: true,

    publish(subject, data) {
      assertSubject(subject);
      const conn = connection;
      if (!conn || !state.connected) return;
      try {
        conn.publish(full(subject), encode({ v: 1, from: nodeId, data: data ?? null }));
      } catch (error) {
        logger.warn({ err: error, subject }, 'cluster message not published');
      }
    },

    subscribe(subject, handler) {
      assertSubject(subject);
      let topic = topics.get(subject);
      if (!topic) {
        topic = { handlers: new Set(), sub: connection ? subscribeTopic(connection, subject) : null };
        topics.set(subject, topic);
      }
      const current = topic;
      current.handlers.add(handler);
      return () => {
        current.handlers.delete(handler);
        if (current.handlers.size === 0 && topics.get(subject) === current) {
          topics.delete(subject);
          current.sub?.unsubscribe();
        }
      };
    },

    request(subject, data, requestOptions) {
      assertSubject(subject);
      const conn = connection;
      if (closed) return Promise.reject(new ClusterUnavailableError('the bus is closed'));
      if (!conn || !state.connected) {
        return Promise.reject(new ClusterUnavailableError(state.reason ?? 'disconnected'));
      }
      sequence += 1;
      const id = String(sequence);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          settle(id, { error: new ClusterTimeoutError(subject) });
        }, requestOptions.timeoutMs);
        pending.set(id, { subject, resolve, reject, timer, chunks: null });
        try {
          conn.publish(full(subject), encode({ v: 1, from: nodeId, data: data ?? null }), {
            reply: `${inbox}.${id}`,
          });
        } catch (error) {
          settle(id, { error: new ClusterUnavailableError(messageOf(error)) });
        }
      });
    },

    respond(subject, responder, respondOptions) {
      assertSubject(subject);
      const entry = {
        subject,
        responder,
        queue: respondOptions?.queue,
        sub: null as Subscription | null,
      };
      if (connection) entry.sub = subscribeAnswerer(connection, entry);
      answerers.add(entry);
      return () => {
        answerers.delete(entry);
        entry.sub?.unsubscribe();
      };
    },

    status() {
      return closed ? { connected: false, reason: 'the bus is closed' } : state;
    },

    async close() {
      if (closed) return;
      closed = true;
      wake?.();
      failPending('the bus is closed');
      topics.clear();
      answerers.clear();
      const conn = connection;
      connection = null;
      if (!conn) return;
      try {
        if (state.connected) await conn.drain();
        else await conn.close();
      } catch {
        await conn.close().catch(() => undefined);
      }
    },
  };
}
