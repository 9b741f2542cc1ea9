import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { streamLimits } from '@svc/protocol';
import { silentLogger } from '../logger.js';
import { coalesceMs, StreamHost, type SourceSink } from './streams.js';

interface SentFrame {
  type: string;
  payload: { stream: string; data?: string; bytes?: number };
}

/** A host with one pty stream open on a fake source; `sink` is the source's output, `sent` what went out. */
async function openStream(windowBytes = streamLimits.defaultWindowBytes) {
  const sent: SentFrame[] = [];
  const source = { paused: false };
  let sink: SourceSink | undefined;
  const host = new StreamHost({
    logger: silentLogger,
    send: (text) => {
      sent.push(JSON.parse(text) as SentFrame);
    },
    openers: {
      pty: {
        open(_params, given) {
          sink = given;
          return Promise.resolve({
            info: { shell: '/bin/sh', pid: 42 },
            source: {
              write: (_chunk, done) => {
                done();
              },
              pause: () => {
                source.paused = true;
              },
              resume: () => {
                source.paused = false;
              },
              close: () => undefined,
            },
          });
        },
      },
    },
  });
  host.handle('stream.open', {
    stream: 's1',
    kind: 'pty',
    window_bytes: windowBytes,
    params: { cols: 80, rows: 24 },
  });
  // The opener's promise settles.
  for (let i = 0; i < 5; i++) await Promise.resolve();
  if (!sink) throw new Error('the opener was not called');
  expect(sent.map((f) => f.type)).toEqual(['stream.opened']);
  sent.length = 0;
  const output = sink;
  const data = () => sent.filter((f) => f.type === 'stream.data');
  const bytesOf = (frames: SentFrame[]) =>
    frames.reduce((sum, f) => sum + Buffer.from(f.payload.data ?? '', 'base64').length, 0);
  return { host, sink: output, source, data, bytesOf };
}

describe('stream output from the agent', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends a lone small output at once, without waiting for the coalescing timer', async () => {
    const { sink, data } = await openStream();
    sink.output(Buffer.from('x'));
    // No timer has run: the echo of a keystroke went out in the same turn.
    expect(data().map((f) => Buffer.from(f.payload.data ?? '', 'base64').toString())).toEqual(['x']);

    // After a quiet spell, the next keystroke's echo goes at once too.
    vi.advanceTimersByTime(coalesceMs * 10);
    sink.output(Buffer.from('y'));
    expect(data().map((f) => Buffer.from(f.payload.data ?? '', 'base64').toString())).toEqual(['x', 'y']);
  });

  it('coalesces sustained small output into few frames, each at most a chunk', async () => {
    const { sink, data, bytesOf } = await openStream();
    // 100 bytes every millisecond for one second.
    for (let ms = 0; ms < 1000; ms++) {
      sink.output(Buffer.alloc(100, 0x61));
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(coalesceMs * 2);
    const frames = data();
    expect(bytesOf(frames)).toBe(100_000);
    // The first at once, then one per coalescing interval: far below the hub's per-stream frame limit.
    expect(frames.length).toBeLessThanOrEqual(1000 / coalesceMs + 2);
    expect(frames.length).toBeLessThan(streamLimits.framesPerSecondPerStream / 2);
    for (const frame of frames) {
      expect(Buffer.from(frame.payload.data ?? '', 'base64').length).toBeLessThanOrEqual(
        streamLimits.chunkBytes,
      );
    }
  });

  it('sends sustained output of uneven reads as full chunks plus one frame per hold', async () => {
    const { host, sink, data, bytesOf } = await openStream();
    // 20 KiB every millisecond for one second (a PTY read does not end on a chunk's edge); the hub acks as
    // it takes the output.
    let acked = 0;
    let seen = 0;
    let sent = 0;
    for (let ms = 0; ms < 1000; ms++) {
      sink.output(Buffer.alloc(20 * 1024, 0x61));
      const frames = data();
      sent += bytesOf(frames.slice(seen));
      seen = frames.length;
      if (sent > acked) host.handle('stream.ack', { stream: 's1', bytes: sent - acked });
      acked = sent;
      vi.advanceTimersByTime(1);
    }
    vi.advanceTimersByTime(coalesceMs * 2);
    const frames = data();
    const total = 1000 * 20 * 1024;
    expect(bytesOf(frames)).toBe(total);
    const small = frames.filter(
      (f) => Buffer.from(f.payload.data ?? '', 'base64').length < streamLimits.chunkBytes,
    );
    // Not one remainder per read: at most one short frame per hold (and the first, sent at once).
    expect(small.length).toBeLessThanOrEqual(1000 / coalesceMs + 2);
    expect(frames.length).toBeLessThanOrEqual(Math.ceil(total / streamLimits.chunkBytes) + small.length);
  });

  it('splits a large output into chunks of at most chunkBytes', async () => {
    const { sink, data, bytesOf } = await openStream();
    sink.output(Buffer.alloc(100 * 1024, 0x62));
    const frames = data();
    expect(bytesOf(frames)).toBe(100 * 1024);
    expect(frames.length).toBe(Math.ceil((100 * 1024) / streamLimits.chunkBytes));
    for (const frame of frames) {
      expect(Buffer.from(frame.payload.data ?? '', 'base64').length).toBeLessThanOrEqual(
        streamLimits.chunkBytes,
      );
    }
  });

  it('sends no more than the window, pauses the source, and goes on with the ack', async () => {
    const window = streamLimits.minWindowBytes;
    const { host, sink, source, data, bytesOf } = await openStream(window);
    sink.output(Buffer.alloc(window * 3, 0x63));
    vi.advanceTimersByTime(coalesceMs * 10);
    expect(bytesOf(data())).toBe(window);
    expect(source.paused).toBe(true);

    host.handle('stream.ack', { stream: 's1', bytes: window });
    vi.advanceTimersByTime(coalesceMs);
    expect(bytesOf(data())).toBe(window * 2);
    host.handle('stream.ack', { stream: 's1', bytes: window });
    vi.advanceTimersByTime(coalesceMs);
    expect(bytesOf(data())).toBe(window * 3);
    expect(source.paused).toBe(false);

    // Out of credit again: a small output waits for the next ack, even after a quiet spell.
    vi.advanceTimersByTime(coalesceMs * 10);
    sink.output(Buffer.from('z'));
    vi.advanceTimersByTime(coalesceMs * 10);
    expect(bytesOf(data())).toBe(window * 3);
    host.handle('stream.ack', { stream: 's1', bytes: window });
    vi.advanceTimersByTime(coalesceMs);
    expect(bytesOf(data())).toBe(window * 3 + 1);
  });
});
