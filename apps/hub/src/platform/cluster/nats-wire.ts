/**
 * What travels on the NATS bus (nats-bus.ts): JSON bodies, signed messages (bus-auth.ts) split into chunks
 * when larger than the server's max_payload, answers `{ ok, data | error }`, publishes of one turn gathered
 * into signed batches (decision 0083), and the count and log of what a receiver drops.
 */
import { headers, type Msg, type NatsConnection } from 'nats';
import type { Logger } from '../logger.js';
import type { BusAuth, Opened, SealOptions } from './bus-auth.js';

/** Requests and answers above this are refused, by the sender and by the receiver that joins the chunks. */
export const maxClusterMessageBytes = 64 * 1024 * 1024;
/** Room left in each chunk for the headers and the protocol line. */
const chunkOverheadBytes = 4096;
const minChunkBytes = 1024;
const defaultMaxPayload = 1024 * 1024;
const maxRemoteMessageChars = 1024;
const dropLogIntervalMs = 60_000;
const subjectPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;

/**
 * A batch's bounds on the sending side (decision 0083): when the next value would take it past either, it
 * leaves and a new one starts. The receiver handles a batch in one go, so it stays far below the 10,000 values
 * a receiver accepts (bus-auth.ts) and below one NATS message (a batch is never chunked).
 */
export const batchLimits = { values: 250, bytes: 64 * 1024 } as const;
const comma = new Uint8Array([0x2c]);
const openBracket = new Uint8Array([0x5b]);
const closeBracket = new Uint8Array([0x5d]);

/** A chunk count no message within the size bound could need is refused before anything is kept for it. */
export const maxChunkCount = Math.ceil(maxClusterMessageBytes / minChunkBytes);

type Reply = { ok: true; data: unknown } | { ok: false; error: string };

/** A chunked message being joined. */
export interface Joining {
  from: string;
  parts: (Uint8Array | undefined)[];
  received: number;
  bytes: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

export function encode(value: unknown): Uint8Array {
  return encoder.encode(JSON.stringify(value));
}

/** The JSON value, or `invalid` (a signed message from a peer is still checked). */
export const invalid = Symbol('invalid');
export function parseJson(bytes: Uint8Array): unknown {
  try {
    return JSON.parse(decoder.decode(bytes)) as unknown;
  } catch {
    return invalid;
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function readReply(bytes: Uint8Array): Reply | null {
  const value = parseJson(bytes);
  if (!isRecord(value)) return null;
  if (value.ok === true && Object.hasOwn(value, 'data')) return { ok: true, data: value.data };
  if (value.ok === false && typeof value.error === 'string') {
    return { ok: false, error: value.error.slice(0, maxRemoteMessageChars) };
  }
  return null;
}

export function messageOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.slice(0, maxRemoteMessageChars);
}

export function assertSubject(subject: string): void {
  if (!subjectPattern.test(subject)) throw new Error(`invalid cluster subject ${JSON.stringify(subject)}`);
}

/** Adds a chunk to what is being joined; the whole once every chunk is in, `null` while some are missing. */
export function addChunk(
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

export interface BusWire {
  /** Counts a message dropped as invalid, and logs the reason at most once a minute. */
  dropped(reason: string): void;
  /** What the message's signature vouches for, or null (dropped and counted). */
  verified(msg: Msg): Opened | null;
  /**
   * Publishes `body` on `subject` with the publishes that follow it in this turn on the same subject: they
   * leave as one signed batch (a JSON array of the bodies) when the turn ends, when another subject is
   * published on, when anything else is sent (so this process's messages keep their order), or when the batch
   * reaches `batchLimits`. A body alone leaves as the single message it always was; one larger than a batch
   * may be leaves alone, in chunks if it must.
   */
  publish(conn: NatsConnection, subject: string, body: Uint8Array): void;
  /** Sends the batch being gathered now (before a request or answer, and before the connection closes). */
  flush(): void;
  /** Drops the batch being gathered (the connection went down: nothing is sent late). */
  discard(): void;
  /**
   * Signs and publishes `body` on `subject`, in chunks when it is larger than one message may be (after the
   * batch being gathered). Returns the id of the first message (a request's id, which its answers name).
   */
  sendSigned(
    conn: NatsConnection,
    subject: string,
    body: Uint8Array,
    extra: { reply?: string; re?: string },
  ): string;
}

export function createBusWire(deps: {
  auth: BusAuth;
  logger: Logger;
  onDropped: (reason: string) => void;
}): BusWire {
  const { auth, logger, onDropped } = deps;
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

  function chunkLimit(conn: NatsConnection): number {
    return Math.max(minChunkBytes, (conn.info?.max_payload ?? defaultMaxPayload) - chunkOverheadBytes);
  }

  /** Seals one message (its reply subject signed with it) and publishes it; the message's id. */
  function publishOne(
    conn: NatsConnection,
    subject: string,
    body: Uint8Array,
    options: SealOptions = {},
  ): string {
    const sealed = auth.seal(subject, body, options);
    const hdrs = headers();
    for (const [name, value] of sealed.headers) hdrs.set(name, value);
    conn.publish(subject, body, {
      headers: hdrs,
      ...(options.reply === undefined ? {} : { reply: options.reply }),
    });
    return sealed.id;
  }

  /** The batch being gathered: publishes of this turn on one subject, in order. */
  let gathering: { conn: NatsConnection; subject: string; bodies: Uint8Array[]; bytes: number } | null = null;
  let flushQueued = false;

  function flush(): void {
    const batch = gathering;
    gathering = null;
    if (!batch) return;
    const { conn, subject, bodies } = batch;
    if (bodies.length === 1) {
      publishOne(conn, subject, bodies[0] as Uint8Array);
      return;
    }
    const parts: Uint8Array[] = [openBracket];
    for (const [index, body] of bodies.entries()) {
      if (index > 0) parts.push(comma);
      parts.push(body);
    }
    parts.push(closeBracket);
    publishOne(conn, subject, Buffer.concat(parts), { batch: bodies.length });
  }

  function flushAtTurnEnd(): void {
    flushQueued = false;
    try {
      flush();
    } catch (error) {
      logger.warn({ err: error }, 'cluster messages not published');
    }
  }

  function sendSigned(
    conn: NatsConnection,
    subject: string,
    body: Uint8Array,
    extra: { reply?: string; re?: string },
  ): string {
    flush();
    const limit = chunkLimit(conn);
    const count = body.length <= limit ? 1 : Math.ceil(body.length / limit);
    let firstId = '';
    for (let index = 0; index < count; index++) {
      const part = count === 1 ? body : body.subarray(index * limit, (index + 1) * limit);
      const id = publishOne(conn, subject, part, {
        ...extra,
        ...(count === 1 ? {} : { chunk: { index, count } }),
      });
      if (index === 0) firstId = id;
    }
    return firstId;
  }

  return {
    dropped,
    flush,
    sendSigned,

    discard() {
      gathering = null;
    },

    publish(conn, subject, body) {
      // The brackets and commas of a batch count towards its bytes.
      const maxBytes = Math.min(batchLimits.bytes, chunkLimit(conn)) - 2;
      if (body.length + 1 > maxBytes) {
        sendSigned(conn, subject, body, {});
        return;
      }
      if (
        gathering &&
        (gathering.conn !== conn ||
          gathering.subject !== subject ||
          gathering.bodies.length >= batchLimits.values ||
          gathering.bytes + 1 + body.length > maxBytes)
      )
        flush();
      if (gathering) {
        gathering.bodies.push(body);
        gathering.bytes += 1 + body.length;
      } else {
        gathering = { conn, subject, bodies: [body], bytes: body.length };
      }
      if (!flushQueued) {
        flushQueued = true;
        setImmediate(flushAtTurnEnd);
      }
    },

    verified(msg) {
      const result = auth.open({ subject: msg.subject, reply: msg.reply ?? '' }, msg.headers, msg.data);
      if (!result.ok) {
        dropped(result.reason);
        return null;
      }
      return result;
    },
  };
}
