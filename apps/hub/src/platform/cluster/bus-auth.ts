/**
 * Who may speak on the cluster bus (decision 0042). NATS is a trust boundary: whoever can publish on its
 * server could otherwise ask a holder to run an agent request. Every message carries, in its headers, a
 * random message id, the send time, the sending node, the subject it was sent on, the subject its answer goes
 * to (requests only), the request it answers (answers only), its chunk position (chunked messages only), the id of the key that signed it, and an
 * HMAC-SHA256 over all of them and the payload bytes. A batch (decision 0083: several publishes of one turn on one
 * subject, a JSON array) also carries its count, signed under a version tag of its own, so no single message
 * can be read as a batch or the reverse. The key is derived from the hub key (HKDF, `busKeyInfo`),
 * which every process of a cluster shares; retired hub keys' bus keys still verify, so a rolling key rotation
 * works. A receiver drops what is unsigned, wrongly signed, sent on another subject, outside the time window,
 * or seen before (a bounded replay cache).
 */
import {
  createHash,
  createHmac,
  createSecretKey,
  randomBytes,
  timingSafeEqual,
  type KeyObject,
} from 'node:crypto';

/** The HKDF info string of the bus key: a new one makes a new key (and a new wire version). */
export const busKeyInfo = 'svc-hub cluster bus v1';

const macVersion = 'svc-bus-v1';
/** The tag of a batch's MAC (decision 0083): a batch and a single message never share a MAC input. */
const batchMacVersion = 'svc-bus-v1-batch';
/** The most values a batch may carry; a receiver refuses a count above it before parsing anything. */
const maxBatchCount = 10_000;

const busAuthDefaults = {
  /** A message sent more than this before or after the receiver's clock is dropped. */
  windowMs: 30_000,
  /** Message ids remembered; when full, the oldest leave and the window's lower edge moves past them. */
  replayCapacity: 200_000,
} as const;

export const busHeaders = {
  key: 'Svc-Key',
  id: 'Svc-Id',
  time: 'Svc-Time',
  from: 'Svc-From',
  subject: 'Svc-Subject',
  re: 'Svc-Re',
  chunk: 'Svc-Chunk',
  batch: 'Svc-Batch',
  mac: 'Svc-Mac',
} as const;

const idPattern = /^[A-Za-z0-9_-]{22}$/;
const keyIdPattern = /^[A-Za-z0-9_-]{8}$/;
const timePattern = /^\d{1,15}$/;
const macPattern = /^[A-Za-z0-9_-]{43}$/;
const nodeIdPattern = /^[A-Za-z0-9_.-]{1,64}$/;
const subjectPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
const chunkPattern = /^(\d{1,7})\/(\d{1,7})$/;
const batchPattern = /^\d{1,5}$/;

/** What a sender adds to a message besides its payload. */
export interface SealOptions {
  /** The subject the answer goes to (a request's reply inbox). */
  reply?: string;
  /** The id of the request this message answers. */
  re?: string;
  /** `index/count` of a chunked message. */
  chunk?: { index: number; count: number };
  /** How many values a batch's payload (a JSON array) holds: 2 to `maxBatchCount`; never with `chunk`. */
  batch?: number;
}

export interface Opened {
  id: string;
  from: string;
  /** The answered request's id, or '' for a message that answers none. */
  re: string;
  chunk: { index: number; count: number } | null;
  /** The number of values of a batch, or null for a single message. */
  batch: number | null;
}

type DropReason = 'unsigned' | 'malformed' | 'subject' | 'key' | 'mac' | 'stale' | 'replay';

type OpenResult = ({ ok: true } & Opened) | { ok: false; reason: DropReason };

interface HeaderReader {
  get(name: string): string;
}

export interface BusAuth {
  /** The headers that sign `payload` sent on `subject` (the full NATS subject), with a fresh message id. */
  seal(
    subject: string,
    payload: Uint8Array,
    options?: SealOptions,
  ): { id: string; headers: [string, string][] };
  /** Checks a received message: what it carries when it is authentic, new and on time; else why not. */
  open(
    arrived: { subject: string; reply: string },
    headers: HeaderReader | undefined,
    payload: Uint8Array,
  ): OpenResult;
}

function chunkOf(text: string): { index: number; count: number } | null {
  const match = chunkPattern.exec(text);
  if (!match) return null;
  const index = Number(match[1]);
  const count = Number(match[2]);
  return count >= 2 && index < count ? { index, count } : null;
}

function batchOf(text: string): number | null {
  if (!batchPattern.test(text)) return null;
  const count = Number(text);
  return count >= 2 && count <= maxBatchCount ? count : null;
}

function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 8);
}

function macOf(key: KeyObject, fields: string[], payload: Uint8Array, batch: string): Buffer {
  // No field may hold a newline: each is checked against a pattern without one before it is signed. A single
  // message's input is as before batches existed (decision 0042); a batch's has its own tag and its count.
  const head = batch === '' ? [macVersion, ...fields] : [batchMacVersion, ...fields, batch];
  return createHmac('sha256', key)
    .update(`${head.join('\n')}\n`)
    .update(payload)
    .digest();
}

/**
 * Message ids seen inside the window. Only authentic messages enter, so its size follows the cluster's own
 * traffic; still it is capped: when full the oldest entries leave and `floor` (the newest time among them)
 * refuses anything sent at or before it, so an evicted message cannot be replayed.
 */
function createReplayCache(capacity: number) {
  const seen = new Map<string, number>();
  let floor = 0;
  return {
    /** False when the id was seen, or when the cache no longer vouches for messages that old. */
    admit(id: string, time: number, oldest: number): boolean {
      if (time <= floor || seen.has(id)) return false;
      // Insertion order is roughly time order: prune from the front while entries are out of the window.
      for (const [key, at] of seen) {
        if (at >= oldest) break;
        seen.delete(key);
      }
      while (seen.size >= capacity) {
        const first = seen.entries().next().value;
        if (!first) break;
        seen.delete(first[0]);
        floor = Math.max(floor, first[1]);
      }
      seen.set(id, time);
      return true;
    },
  };
}

export function createBusAuth(options: {
  /** The node id this process signs as. */
  nodeId: string;
  /** Bus keys: the current one first (it signs), then retired ones (they only verify). */
  keys: readonly Buffer[];
  now?: () => number;
  windowMs?: number;
  replayCapacity?: number;
}): BusAuth {
  const [current] = options.keys;
  if (!current || options.keys.some((key) => key.length < 32))
    throw new Error('the cluster bus needs a key of 32 bytes');
  const currentId = keyIdOf(current);
  // Key objects: an HMAC keyed by a Buffer costs several times more (the key is imported at each call).
  const keys = new Map(options.keys.map((key) => [keyIdOf(key), createSecretKey(key)]));
  const signingKey = createSecretKey(current);
  // Message ids: 10 random bytes per bus and a 6-byte counter, unique without a random draw per message.
  const idBytes = Buffer.alloc(16);
  randomBytes(10).copy(idBytes);
  let counter = 0;
  const now = options.now ?? Date.now;
  const windowMs = options.windowMs ?? busAuthDefaults.windowMs;
  const replay = createReplayCache(options.replayCapacity ?? busAuthDefaults.replayCapacity);
  const { nodeId } = options;
  if (!nodeIdPattern.test(nodeId)) throw new Error(`invalid node id ${JSON.stringify(nodeId)}`);

  return {
    seal(subject, payload, sealOptions = {}) {
      if (!subjectPattern.test(subject))
        throw new Error(`invalid cluster subject ${JSON.stringify(subject)}`);
      const reply = sealOptions.reply ?? '';
      if (reply !== '' && !subjectPattern.test(reply)) throw new Error('invalid reply subject');
      const re = sealOptions.re ?? '';
      if (re !== '' && !idPattern.test(re)) throw new Error('invalid request id');
      const chunk = sealOptions.chunk ? `${sealOptions.chunk.index}/${sealOptions.chunk.count}` : '';
      const batch = sealOptions.batch === undefined ? '' : String(sealOptions.batch);
      if (batch !== '' && (batchOf(batch) === null || chunk !== '')) throw new Error('invalid batch count');
      counter += 1;
      idBytes.writeUIntBE(counter, 10, 6);
      const id = idBytes.toString('base64url');
      const time = String(now());
      const mac = macOf(signingKey, [currentId, id, time, nodeId, subject, reply, re, chunk], payload, batch);
      const headers: [string, string][] = [
        [busHeaders.key, currentId],
        [busHeaders.id, id],
        [busHeaders.time, time],
        [busHeaders.from, nodeId],
        [busHeaders.subject, subject],
        [busHeaders.mac, mac.toString('base64url')],
      ];
      if (re !== '') headers.push([busHeaders.re, re]);
      if (chunk !== '') headers.push([busHeaders.chunk, chunk]);
      if (batch !== '') headers.push([busHeaders.batch, batch]);
      return { id, headers };
    },

    open(arrived, headers, payload) {
      const mac = headers?.get(busHeaders.mac) ?? '';
      if (!headers || mac === '') return { ok: false, reason: 'unsigned' };
      const keyId = headers.get(busHeaders.key);
      const id = headers.get(busHeaders.id);
      const time = headers.get(busHeaders.time);
      const from = headers.get(busHeaders.from);
      const subject = headers.get(busHeaders.subject);
      const re = headers.get(busHeaders.re);
      const chunkText = headers.get(busHeaders.chunk);
      const chunk = chunkText === '' ? null : chunkOf(chunkText);
      const batchText = headers.get(busHeaders.batch);
      const batch = batchText === '' ? null : batchOf(batchText);
      if (
        !macPattern.test(mac) ||
        !keyIdPattern.test(keyId) ||
        !idPattern.test(id) ||
        !timePattern.test(time) ||
        !nodeIdPattern.test(from) ||
        !subjectPattern.test(subject) ||
        (re !== '' && !idPattern.test(re)) ||
        (chunkText !== '' && !chunk) ||
        (batchText !== '' && (batch === null || chunk !== null)) ||
        (arrived.reply !== '' && !subjectPattern.test(arrived.reply))
      )
        return { ok: false, reason: 'malformed' };
      // A signed message replayed onto another subject (an event onto an agent request) says where it was sent.
      if (subject !== arrived.subject) return { ok: false, reason: 'subject' };
      const key = keys.get(keyId);
      if (!key) return { ok: false, reason: 'key' };
      const expected = macOf(
        key,
        [keyId, id, time, from, subject, arrived.reply, re, chunkText],
        payload,
        batchText,
      );
      if (!timingSafeEqual(expected, Buffer.from(mac, 'base64url'))) return { ok: false, reason: 'mac' };
      const sentAt = Number(time);
      const at = now();
      if (Math.abs(at - sentAt) > windowMs) return { ok: false, reason: 'stale' };
      if (!replay.admit(id, sentAt, at - windowMs)) return { ok: false, reason: 'replay' };
      return { ok: true, id, from, re, chunk, batch };
    },
  };
}
