/**
 * The cluster bus over NATS core (decisions 0038 and 0042): plain subjects under `svc.` (an optional prefix
 * before it), JSON payloads, requests answered on a per-bus inbox. Every message is signed (bus-auth.ts): its
 * headers name the sending node, and a receiver drops, counts and never answers what is not authentic, new and
 * on time. The connection is opened with `noEcho`, so what this process publishes never comes back to it; the
 * sender is checked as well. Requests and answers larger than the server's max_payload travel in chunks, each
 * signed (header `Svc-Chunk: i/n`), joined by the receiver up to 64 MiB.
 *
 * A message id is accepted once per process: a process subscribes to each subject once (its handlers share
 * the subscription), and must not both subscribe and respond on one subject, or answer it twice.
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
  createReconnectListeners,
} from './cluster-bus.js';
import { createBusAuth, type Opened } from './bus-auth.js';
import { parseNatsUrl } from './nats-url.js';

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

/** Requests and answers above this are refused, by the sender and by the receiver that joins the chunks. */
const maxClusterMessageBytes = 64 * 1024 * 1024;
/** Room left in each chunk for the headers and the protocol line. */
const chunkOverheadBytes = 4096;
const minChunkBytes = 1024;
const defaultMaxPayload = 1024 * 1024;
const maxRemoteMessageChars = 1024;
/** Chunked requests one sender may have in flight to one process: more are dropped. */
const maxPartialRequestsPerSender = 8;
const defaultPartialTimeoutMs = 30_000;
const dropLogIntervalMs = 60_000;
const subjectPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

type Reply = { ok: true; data: unknown } | { ok: false; error: string };

interface Joining {
  from: string;
  parts: (Uint8Array | undefined)[];
  received: number;
  bytes: number;
}

interface PendingRequest {
  subject: string;
  /** The id of the request's first message: every answer names it. */
  requestId: string;
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: NodeJS.Timeout;
  /** The first chunked answer being joined (a request without a queue group may get several answers). */
  chunks: Joining | null;
}

/** A chunked request being joined by the responder, by its reply subject. */
interface PartialRequest extends Joining {
  responder: ClusterResponder;
  /** The id of chunk 0, which the answer names. */
  firstId: string | null;
  timer: NodeJS.Timeout;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The JSON value, or `invalid` (a signed message from a peer is still checked). */
const invalid = Symbol('invalid');
function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return invalid;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readReply(bytes: Uint8Array): Reply | null {
  const value = parseJson(bytes);
  if (!isRecord(value)) return null;
  if (value.ok === true && Object.hasOwn(value, 'data')) return { ok: true, data: value.data };
  if (value.ok === false && typeof value.error === 'string') {
    return { ok: false, error: value.error.slice(0, maxRemoteMessageChars) };
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

/** Adds a chunk to what is being joined; the whole once every chunk is in, `null` while some are missing. */
function addChunk(
  joining: Joining,
  chunk: { index: number; count: number },
  data: Uint8Array,
): 'duplicate' | 'too large' | Uint8Array | null {
  if (joining.parts.length !== chunk.count || joining.parts[chunk.index] !== undefined) return 'duplicate';
  joining.parts[chunk.index] = data;
  joining.received += 1;
  joining.bytes += data.length;
  if (joining.bytes > maxClusterMessageBytes) return 'too large';
  if (joining.received < chunk.count) return null;
  return Buffer.concat(joining.parts.map((part) => part ?? new Uint8Array()));
}

/** A chunk count no message within the size bound could need is refused before anything is kept for it. */
const maxChunkCount = Math.ceil(maxClusterMessageBytes / minChunkBytes);

export function createNatsClusterBus(options: NatsClusterBusOptions): ClusterBus {
  const { nodeId, logger } = options;
  const parsed = parseNatsUrl(options.url);
  if (!parsed.ok) throw new Error(`SVC_NATS_URL ${parsed.problem}`);
  const target = parsed.target;
  const prefix = options.prefix ? `${options.prefix}.` : '';
  if (prefix !== '') assertSubject(options.prefix ?? '');
  const waitMs = options.reconnectWaitMs ?? 2000;
  const partialTimeoutMs = options.partialTimeoutMs ?? defaultPartialTimeoutMs;
  const onDropped = options.onDropped ?? (() => undefined);
  const auth = createBusAuth({ nodeId, keys: options.keys, ...(options.now ? { now: options.now } : {}) });
  const inbox = createInbox(`_INBOX_SVC.${nodeId.replace(/\./g, '_')}`);

  let connection: NatsConnection | null = null;
  let state: ClusterBusStatus = { connected: false, reason: 'connecting to NATS' };
  let closed = false;
  let wake: (() => void) | null = null;
  let sequence = 0;
  const pending = new Map<string, PendingRequest>();
  const partials = new Map<string, PartialRequest>();
  const partialsBySender = new Map<string, number>();
  const topics = new Map<string, { handlers: Set<ClusterHandler>; sub: Subscription | null }>();
  const answerers = new Set<{
    subject: string;
    responder: ClusterResponder;
    queue: string | undefined;
    sub: Subscription | null;
  }>();

  const full = (subject: string) => `${prefix}${subject}`;
  const reconnected = createReconnectListeners((error) => {
    logger.error({ err: error }, 'a cluster bus reconnect listener failed');
  });

  /** When each drop reason was last logged: a flood, or a peer with another hub key, logs once a minute. */
  const droppedLogged = new Map<string, number>();
  function dropped(reason: string): void {
    onDropped(reason);
    const at = Date.now();
    const last = droppedLogged.get(reason);
    if (last !== undefined && at - last < dropLogIntervalMs) return;
    if (droppedLogged.size >= 32) droppedLogged.clear();
    droppedLogged.set(reason, at);
    logger.warn(
      { reason, hint: reason === 'key' ? 'a process with another hub key is on this NATS' : undefined },
      'cluster bus dropped a message (counted in svc_hub_cluster_messages_dropped_total)',
    );
  }

  /** What the message's signature vouches for, or null (dropped and counted). */
  function verified(msg: Msg): Opened | null {
    const result = auth.open({ subject: msg.subject, reply: msg.reply ?? '' }, msg.headers, msg.data);
    if (!result.ok) {
      dropped(result.reason);
      return null;
    }
    return result;
  }

  /**
   * Signs and publishes `body` on `subject`, in chunks when it is larger than one message may be. Returns the
   * id of the first message (a request's id, which its answers name).
   */
  function sendSigned(
    conn: NatsConnection,
    subject: string,
    body: Uint8Array,
    extra: { reply?: string; re?: string },
  ): string {
    const limit = Math.max(minChunkBytes, (conn.info?.max_payload ?? defaultMaxPayload) - chunkOverheadBytes);
    const count = body.length <= limit ? 1 : Math.ceil(body.length / limit);
    let firstId = '';
    for (let index = 0; index < count; index++) {
      const part = count === 1 ? body : body.subarray(index * limit, (index + 1) * limit);
      const sealed = auth.seal(subject, part, {
        ...extra,
        ...(count === 1 ? {} : { chunk: { index, count } }),
      });
      if (index === 0) firstId = sealed.id;
      const hdrs = headers();
      for (const [name, value] of sealed.headers) hdrs.set(name, value);
      conn.publish(subject, part, {
        headers: hdrs,
        ...(extra.reply === undefined ? {} : { reply: extra.reply }),
      });
    }
    return firstId;
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
    // The client has sent its subscriptions again before it reports the reconnect.
    if (how === 'reconnected') reconnected.fire();
  }

  function onTopicMessage(subject: string, msg: Msg): void {
    const opened = verified(msg);
    if (!opened || opened.from === nodeId) return;
    const data = parseJson(msg.data);
    if (data === invalid) {
      dropped('payload');
      return;
    }
    for (const handler of topics.get(subject)?.handlers ?? []) {
      try {
        handler(data, { from: opened.from });
      } catch (error) {
        logger.error({ err: error, subject }, 'cluster message handler failed');
      }
    }
  }

  function sendReply(reply: string, requestId: string, body: Uint8Array): void {
    const conn = connection;
    if (!conn || !state.connected) return;
    try {
      sendSigned(conn, reply, body, { re: requestId });
    } catch (error) {
      logger.warn({ err: error }, 'cluster answer not sent');
    }
  }

  async function answer(
    responder: ClusterResponder,
    request: { reply: string; id: string; from: string },
    bytes: Uint8Array,
  ): Promise<void> {
    const data = parseJson(bytes);
    if (data === invalid) {
      dropped('payload');
      return;
    }
    let body: Uint8Array;
    try {
      const value = await responder(data, { from: request.from });
      body = encode({ ok: true, data: value ?? null });
    } catch (error) {
      body = encode({ ok: false, error: messageOf(error) });
    }
    if (body.length > maxClusterMessageBytes) {
      body = encode({ ok: false, error: 'the answer is larger than 64 MiB' });
    }
    sendReply(request.reply, request.id, body);
  }

  function forgetPartial(key: string, partial: PartialRequest): void {
    if (partials.get(key) !== partial) return;
    partials.delete(key);
    clearTimeout(partial.timer);
    const left = (partialsBySender.get(partial.from) ?? 1) - 1;
    if (left <= 0) partialsBySender.delete(partial.from);
    else partialsBySender.set(partial.from, left);
  }

  /** A chunk of a request: joined with the others of its reply subject, answered once whole. */
  function onRequestChunk(
    responder: ClusterResponder,
    reply: string,
    opened: Opened & { chunk: { index: number; count: number } },
    data: Uint8Array,
  ): void {
    const key = `${opened.from} ${reply}`;
    let partial = partials.get(key);
    if (!partial) {
      const open = partialsBySender.get(opened.from) ?? 0;
      if (opened.chunk.count > maxChunkCount || open >= maxPartialRequestsPerSender) {
        dropped('chunk');
        return;
      }
      const created: PartialRequest = {
        from: opened.from,
        parts: new Array<Uint8Array | undefined>(opened.chunk.count),
        received: 0,
        bytes: 0,
        responder,
        firstId: null,
        timer: setTimeout(() => {
          forgetPartial(key, created);
          dropped('partial request timed out');
        }, partialTimeoutMs),
      };
      created.timer.unref();
      partial = created;
      partials.set(key, partial);
      partialsBySender.set(opened.from, open + 1);
    }
    if (opened.chunk.index === 0) partial.firstId = opened.id;
    const whole = addChunk(partial, opened.chunk, data);
    if (whole === null) return;
    forgetPartial(key, partial);
    if (whole === 'duplicate' || whole === 'too large') {
      dropped(`chunk ${whole}`);
      return;
    }
    void answer(partial.responder, { reply, id: partial.firstId ?? '', from: opened.from }, whole);
  }

  function onRequestMessage(entry: { responder: ClusterResponder }, msg: Msg): void {
    const opened = verified(msg);
    if (!opened) return;
    if (!msg.reply) {
      dropped('request without a reply subject');
      return;
    }
    if (opened.from === nodeId) return;
    if (opened.chunk)
      onRequestChunk(entry.responder, msg.reply, { ...opened, chunk: opened.chunk }, msg.data);
    else void answer(entry.responder, { reply: msg.reply, id: opened.id, from: opened.from }, msg.data);
  }

  function onReplyMessage(msg: Msg): void {
    const id = msg.subject.slice(inbox.length + 1);
    const request = pending.get(id);
    // Late answers, and the second answer of a request without a queue group, have nothing waiting.
    if (!request) return;
    // The server's own "no responders" status: unsigned, empty, and it can only fail the request.
    if (msg.headers?.code === 503 && msg.data.length === 0) {
      settle(id, { error: new ClusterNoResponderError(request.subject) });
      return;
    }
    const opened = verified(msg);
    if (!opened) return;
    // An answer to an earlier request, replayed into this one's inbox.
    if (opened.re !== request.requestId) {
      dropped('answer to another request');
      return;
    }
    if (!opened.chunk) {
      finishReply(id, request, msg.data);
      return;
    }
    if (opened.chunk.count > maxChunkCount) {
      dropped('chunk');
      return;
    }
    request.chunks ??= {
      from: opened.from,
      parts: new Array<Uint8Array | undefined>(opened.chunk.count),
      received: 0,
      bytes: 0,
    };
    if (request.chunks.from !== opened.from) return;
    const whole = addChunk(request.chunks, opened.chunk, msg.data);
    if (whole === null) return;
    if (whole === 'duplicate') {
      dropped('chunk duplicate');
      return;
    }
    if (whole === 'too large') {
      settle(id, { error: new ClusterRemoteError(request.subject, 'the answer is larger than 64 MiB') });
      return;
    }
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
        sendSigned(conn, full(subject), encode(data ?? null), {});
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
      const body = encode(data ?? null);
      if (body.length > maxClusterMessageBytes)
        return Promise.reject(new Error('the request is larger than 64 MiB'));
      sequence += 1;
      const id = String(sequence);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          settle(id, { error: new ClusterTimeoutError(subject) });
        }, requestOptions.timeoutMs);
        const request: PendingRequest = { subject, requestId: '', resolve, reject, timer, chunks: null };
        pending.set(id, request);
        try {
          // Nothing is received before this returns: the answers' handler runs on a later turn.
          request.requestId = sendSigned(conn, full(subject), body, { reply: `${inbox}.${id}` });
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

    onReconnected(listener) {
      return reconnected.add(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      wake?.();
      reconnected.clear();
      failPending('the bus is closed');
      for (const [key, partial] of [...partials]) forgetPartial(key, partial);
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
