/**
 * The events bench's subscribers, in a process of their own so the bench's figures are the hub's and not the
 * clients' (hub and clients would otherwise share one event loop). Driven over the IPC channel by
 * bench/events.bench.ts:
 *
 * - `open {url, key, count, types, paused, deflate}`: connects `count` event-stream clients (paused: a client
 *   that never reads; deflate: offering permessage-deflate, as browsers and `ws` do), answers `opened`;
 * - `published {ids, at}`: the events the bench has just published and when (process.hrtime, milliseconds:
 *   CLOCK_MONOTONIC, the same clock in both processes);
 * - `finish {expected, timeoutMs}`: waits (bounded) until the reading clients got `expected` messages in all,
 *   answers `result` (delivered, p50/p99 delivery latency, messages out of order, how the paused one ended)
 *   and closes every client.
 *
 * The clients are plain sockets that walk the frames without assembling messages (`frameReader`) and read the
 * ids of about 100 clients' messages only, so the clients stay cheap next to the hub they measure (`ws` clients
 * parsing every message could not keep up with 1,000 streams: the figures were theirs). A compressed message
 * (RSV1) is timed by its place in the stream (the n-th message a client gets is the n-th event published, all
 * clients asking for every type the bench publishes), and every 20th is inflated to check that its id is the
 * n-th one, so the measured clients do not spend a core inflating.
 */
import crypto from 'node:crypto';
import net from 'node:net';
import zlib from 'node:zlib';

interface Open {
  op: 'open';
  url: string;
  key: string;
  count: number;
  types: string;
  paused: boolean;
  deflate: boolean;
}
interface Published {
  op: 'published';
  ids: string[];
  at: number[];
}
interface Finish {
  op: 'finish';
  expected: number;
  timeoutMs: number;
}
type Command = Open | Published | Finish;

if (!process.send) throw new Error('run by bench/events.bench.ts (needs an IPC channel)');
const reply = (message: unknown): void => {
  process.send?.(message);
};
const now = (): number => Number(process.hrtime.bigint()) / 1e6;

/** Publish time and place in the run of each event the bench told us about. */
const published = new Map<string, { at: number; seq: number }>();
/** The same by place in the run: the ids and when each was due. */
const publishedIds: string[] = [];
const publishedAt: number[] = [];
/** Messages that arrived before the bench's note of their event: resolved at the end. */
const early: { id: string; at: number }[] = [];
/** Compressed messages that arrived before the bench's note of their place: resolved at the end. */
const earlyAt: { seq: number; at: number }[] = [];
/** Of the compressed messages, the ids read (every 20th) and their place, checked at the end. */
const checks: { seq: number; id: string }[] = [];
const checkEvery = 20;
const latencies: number[] = [];
let delivered = 0;
let outOfOrder = 0;
let malformed = 0;
const sockets: net.Socket[] = [];
let pausedClose: { code: number } | null = null;

const prefix = Buffer.from('{"id":"');
/** Bytes of a payload's start a client looks at: enough for `{"id":"…"` and a ping's or close's payload. */
const peekBytes = 125;
/** Bytes of a compressed payload a measured client keeps, to inflate the start of (the bench's are ~300). */
const peekCompressedBytes = 16 * 1024;
const syncFlushTail = Buffer.from([0x00, 0x00, 0xff, 0xff]);

/** The id at the start of a message's text, or null when it does not start with one. */
function idAt(text: Buffer): string | null {
  if (text.length < prefix.length || text.compare(prefix, 0, prefix.length, 0, prefix.length) !== 0)
    return null;
  const end = text.indexOf(0x22, prefix.length);
  return end < 0 ? null : text.toString('latin1', prefix.length, end);
}

/**
 * Reads the server's frames from the socket's chunks as they come, without assembling messages: each
 * frame's header and first bytes are looked at, the rest skipped. Answers pings (a client must; the hub cuts
 * one that does not).
 */
function frameReader(
  socket: net.Socket,
  onText: (peek: Buffer, compressed: boolean) => void,
  onClose: (code: number) => void,
  keepsCompressed: boolean,
): (chunk: Buffer) => void {
  let carry: Buffer | null = null;
  let skip = 0;
  return (chunk) => {
    let buf = chunk;
    let pos = 0;
    if (skip > 0) {
      pos = Math.min(skip, buf.length);
      skip -= pos;
    }
    if (carry) {
      buf = Buffer.concat([carry, buf.subarray(pos)]);
      pos = 0;
      carry = null;
    }
    while (pos < buf.length) {
      const avail = buf.length - pos;
      const b1 = (buf[pos + 1] ?? 0) & 0x7f;
      const headerBytes = b1 === 127 ? 10 : b1 === 126 ? 4 : 2;
      let length = b1;
      if (avail >= headerBytes) {
        if (b1 === 126) length = buf.readUInt16BE(pos + 2);
        else if (b1 === 127) length = Number(buf.readBigUInt64BE(pos + 2));
      }
      const compressed = ((buf[pos] ?? 0) & 0x40) !== 0;
      const seen = Math.min(length, compressed && keepsCompressed ? peekCompressedBytes : peekBytes);
      if (avail < 2 || avail < headerBytes + seen) {
        carry = Buffer.from(buf.subarray(pos));
        return;
      }
      const opcode = (buf[pos] ?? 0) & 0x0f;
      const peek = buf.subarray(pos + headerBytes, pos + headerBytes + seen);
      if (opcode === 0x1) onText(peek, compressed);
      else if (opcode === 0x9) {
        // A client's frames are masked; an all-zero mask leaves the payload as it is.
        socket.write(Buffer.concat([Buffer.from([0x8a, 0x80 | peek.length, 0, 0, 0, 0]), peek]));
      } else if (opcode === 0x8) onClose(peek.length >= 2 ? peek.readUInt16BE(0) : 1005);
      const end = pos + headerBytes + length;
      if (end > buf.length) {
        skip = end - buf.length;
        return;
      }
      pos = end;
    }
  };
}

/**
 * One event-stream client on a plain socket: the WebSocket handshake by hand, then `frameReader`. Of many
 * clients, only some (`measured`) read ids and record latencies; all count messages.
 */
function connect(command: Open, measured: boolean): Promise<net.Socket> {
  const target = new URL(`${command.url}?types=${command.types}`);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('loopback only');
  const socket = net.connect(Number(target.port), target.hostname);
  socket.setNoDelay(true);
  let lastSeq = -1;
  let received = 0;
  const onText = (peek: Buffer, compressed: boolean): void => {
    delivered += 1;
    const seq = received;
    received += 1;
    if (!measured) return;
    const at = now();
    if (compressed) {
      const due = publishedAt[seq];
      if (due === undefined) earlyAt.push({ seq, at });
      else latencies.push(at - due);
      if (seq % checkEvery === 0) {
        const text = zlib.inflateRawSync(Buffer.concat([peek, syncFlushTail]), {
          finishFlush: zlib.constants.Z_SYNC_FLUSH,
        });
        checks.push({ seq, id: idAt(text) ?? '' });
      }
      return;
    }
    const id = idAt(peek);
    if (id === null) {
      malformed += 1;
      return;
    }
    const known = published.get(id);
    if (!known) {
      early.push({ id, at });
      return;
    }
    latencies.push(at - known.at);
    if (known.seq < lastSeq) outOfOrder += 1;
    lastSeq = known.seq;
  };
  const read = frameReader(
    socket,
    onText,
    (code) => {
      if (command.paused) pausedClose = { code };
      socket.end();
    },
    measured,
  );
  socket.write(
    `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\n` +
      `Connection: Upgrade\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\n` +
      (command.deflate ? 'Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n' : '') +
      `Sec-WebSocket-Version: 13\r\nAuthorization: Bearer ${command.key}\r\n\r\n`,
  );
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    const onHandshake = (chunk: Buffer): void => {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      socket.off('data', onHandshake);
      const status = head.toString('latin1', 0, head.indexOf('\r\n'));
      if (!status.startsWith('HTTP/1.1 101')) {
        reject(new Error(`no upgrade: ${status}`));
        socket.destroy();
        return;
      }
      socket.on('data', read);
      if (head.length > end + 4) read(head.subarray(end + 4));
      if (command.paused) socket.pause();
      resolve(socket);
    };
    socket.on('data', onHandshake);
    socket.once('error', reject);
  });
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

async function finish(command: Finish): Promise<void> {
  const deadline = Date.now() + command.timeoutMs;
  while (delivered < command.expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  for (const { id, at } of early) {
    const known = published.get(id);
    if (known) latencies.push(at - known.at);
  }
  for (const { seq, at } of earlyAt) {
    const due = publishedAt[seq];
    if (due !== undefined) latencies.push(at - due);
  }
  // A compressed message whose id is not the one published at its place: lost, reordered or garbled.
  for (const { seq, id } of checks) if (publishedIds[seq] !== id) malformed += 1;
  latencies.sort((a, b) => a - b);
  const result = {
    op: 'result',
    delivered,
    measured: latencies.length,
    checked: checks.length,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    outOfOrder,
    malformed,
    pausedClose,
  };
  for (const socket of sockets) socket.destroy();
  sockets.length = 0;
  published.clear();
  publishedIds.length = 0;
  publishedAt.length = 0;
  early.length = 0;
  earlyAt.length = 0;
  checks.length = 0;
  latencies.length = 0;
  delivered = 0;
  outOfOrder = 0;
  malformed = 0;
  pausedClose = null;
  reply(result);
}

process.on('message', (command: Command) => {
  if (command.op === 'published') {
    command.ids.forEach((id, i) => {
      const at = command.at[i] ?? 0;
      published.set(id, { at, seq: publishedIds.length });
      publishedIds.push(id);
      publishedAt.push(at);
    });
  } else if (command.op === 'open') {
    void (async () => {
      // About 100 clients measure latency (all of them up to 100); every client counts what it receives.
      const every = Math.max(1, Math.ceil(command.count / 100));
      for (let i = 0; i < command.count; i += 1) sockets.push(await connect(command, i % every === 0));
      reply({ op: 'opened' });
    })();
  } else {
    void finish(command);
  }
});
process.on('disconnect', () => {
  process.exit(0);
});
reply({ op: 'ready' });
