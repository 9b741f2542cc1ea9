/**
 * What the NATS bus (nats-bus.ts) listens to: topics, one subscription per subject shared by its handlers, and
 * responders, which answer requests (joining chunked ones first). Both are subscribed again on each new
 * connection; messages not signed by another process of this cluster are dropped.
 */
import type { Msg, NatsConnection, Subscription } from 'nats';
import type { Logger } from '../logger.js';
import type { Opened } from './bus-auth.js';
import type { ClusterHandler, ClusterResponder } from './cluster-bus.js';
import {
  addChunk,
  encode,
  invalid,
  maxChunkCount,
  maxClusterMessageBytes,
  messageOf,
  parseJson,
  type BusWire,
  type Joining,
} from './nats-wire.js';

/** Chunked requests one sender may have in flight to one process: more are dropped. */
const maxPartialRequestsPerSender = 8;

interface SubscriptionDeps {
  nodeId: string;
  wire: BusWire;
  logger: Logger;
  /** The subject on the wire (the cluster's prefix before it). */
  full: (subject: string) => string;
}

export interface Topics {
  /** Adds a handler (subscribing the subject on `conn` when it is the first); returns the removal. */
  add(conn: NatsConnection | null, subject: string, handler: ClusterHandler): () => void;
  /** Subscribes every topic on a new connection. */
  attach(conn: NatsConnection): void;
  clear(): void;
}

export function createTopics(deps: SubscriptionDeps): Topics {
  const { nodeId, wire, logger } = deps;
  const topics = new Map<string, { handlers: Set<ClusterHandler>; sub: Subscription | null }>();

  function onTopicMessage(subject: string, msg: Msg): void {
    const opened = wire.verified(msg);
    if (!opened || opened.from === nodeId) return;
    const data = parseJson(msg.data);
    if (data === invalid) {
      wire.dropped('payload');
      return;
    }
    // A batch (decision 0083) is its values in order, as if each had come alone; one that is not the array
    // its signed count says is dropped whole.
    if (opened.batch !== null && (!Array.isArray(data) || data.length !== opened.batch)) {
      wire.dropped('batch');
      return;
    }
    const values: readonly unknown[] = opened.batch === null ? [data] : (data as unknown[]);
    const handlers = [...(topics.get(subject)?.handlers ?? [])];
    const meta = { from: opened.from };
    for (const value of values) {
      for (const handler of handlers) {
        try {
          handler(value, meta);
        } catch (error) {
          logger.error({ err: error, subject }, 'cluster message handler failed');
        }
      }
    }
  }

  function subscribeTopic(conn: NatsConnection, subject: string): Subscription {
    return conn.subscribe(deps.full(subject), {
      callback: (error, msg) => {
        if (!error) onTopicMessage(subject, msg);
      },
    });
  }

  return {
    add(conn, subject, handler) {
      let topic = topics.get(subject);
      if (!topic) {
        topic = { handlers: new Set(), sub: conn ? subscribeTopic(conn, subject) : null };
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

    attach(conn) {
      for (const [subject, topic] of topics) topic.sub = subscribeTopic(conn, subject);
    },

    clear() {
      topics.clear();
    },
  };
}

/** A chunked request being joined by the responder, by its reply subject. */
interface PartialRequest extends Joining {
  responder: ClusterResponder;
  /** The id of chunk 0, which the answer names. */
  firstId: string | null;
  timer: NodeJS.Timeout;
}

interface Answerer {
  subject: string;
  responder: ClusterResponder;
  queue: string | undefined;
  sub: Subscription | null;
}

export interface Responders {
  /** Adds a responder (subscribed on `conn` at once when there is one); returns the removal. */
  add(conn: NatsConnection | null, subject: string, responder: ClusterResponder, queue?: string): () => void;
  /** Subscribes every responder on a new connection. */
  attach(conn: NatsConnection): void;
  /** Drops the requests being joined and forgets every responder. */
  clear(): void;
}

export function createResponders(
  deps: SubscriptionDeps & {
    /** How long a chunked request may take to arrive whole before its parts are dropped. */
    partialTimeoutMs: number;
    /** The connection while the bus is connected (answers are sent on it), null otherwise. */
    connected: () => NatsConnection | null;
  },
): Responders {
  const { nodeId, wire } = deps;
  const partials = new Map<string, PartialRequest>();
  const partialsBySender = new Map<string, number>();
  const answerers = new Set<Answerer>();

  async function answer(
    responder: ClusterResponder,
    request: { reply: string; id: string; from: string },
    bytes: Uint8Array,
  ): Promise<void> {
    const data = parseJson(bytes);
    if (data === invalid) {
      wire.dropped('payload');
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

  function sendReply(reply: string, requestId: string, body: Uint8Array): void {
    const conn = deps.connected();
    if (!conn) return;
    try {
      wire.sendSigned(conn, reply, body, { re: requestId });
    } catch (error) {
      deps.logger.warn({ err: error }, 'cluster answer not sent');
    }
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
        wire.dropped('chunk');
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
          wire.dropped('partial request timed out');
        }, deps.partialTimeoutMs),
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
      wire.dropped(`chunk ${whole}`);
      return;
    }
    void answer(partial.responder, { reply, id: partial.firstId ?? '', from: opened.from }, whole);
  }

  function onRequestMessage(entry: { responder: ClusterResponder }, msg: Msg): void {
    const opened = wire.verified(msg);
    if (!opened) return;
    if (!msg.reply) {
      wire.dropped('request without a reply subject');
      return;
    }
    if (opened.from === nodeId) return;
    // Requests are never batched: only publishes are.
    if (opened.batch !== null) {
      wire.dropped('batch');
      return;
    }
    if (opened.chunk)
      onRequestChunk(entry.responder, msg.reply, { ...opened, chunk: opened.chunk }, msg.data);
    else void answer(entry.responder, { reply: msg.reply, id: opened.id, from: opened.from }, msg.data);
  }

  function subscribeAnswerer(conn: NatsConnection, entry: Answerer): Subscription {
    return conn.subscribe(deps.full(entry.subject), {
      ...(entry.queue === undefined ? {} : { queue: entry.queue }),
      callback: (error, msg) => {
        if (!error) onRequestMessage(entry, msg);
      },
    });
  }

  return {
    add(conn, subject, responder, queue) {
      const entry: Answerer = { subject, responder, queue, sub: null };
      if (conn) entry.sub = subscribeAnswerer(conn, entry);
      answerers.add(entry);
      return () => {
        answerers.delete(entry);
        entry.sub?.unsubscribe();
      };
    },

    attach(conn) {
      for (const entry of answerers) entry.sub = subscribeAnswerer(conn, entry);
    },

    clear() {
      for (const [key, partial] of [...partials]) forgetPartial(key, partial);
      answerers.clear();
    },
  };
}
