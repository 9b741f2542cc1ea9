/**
 * Channel streams with both ends in one process: the hub's stream table and the agent's stream host joined
 * by a pair of in-memory pipes that carry the same JSON frames the WebSocket would. A flooding source, a
 * consumer that stops acknowledging, a hostile agent.
 */
import { describe, expect, it } from 'vitest';
import { streamLimits } from '@svc/protocol';
import { StreamHost, type OpenedSource, type SourceSink } from '../../../agent/src/channel/streams.js';
import type { AgentStreamHandle, StreamEnd } from './agent-gateway.js';
import { createStreamTable, type StreamTable } from './streams.js';

const silent = { debug() {}, info() {}, warn() {}, error() {} };

/** A source that writes `chunk` whenever it is not paused, until told to stop; records its input. */
class FloodSource implements OpenedSource {
  paused = false;
  closed = false;
  produced = 0;
  pauses = 0;
  input: Buffer[] = [];
  sizes: { cols: number; rows: number }[] = [];
  constructor(
    private readonly sink: SourceSink,
    private readonly limit: number,
  ) {}
  write(chunk: Buffer, done: () => void): void {
    this.input.push(chunk);
    done();
  }
  resize(cols: number, rows: number): void {
    this.sizes.push({ cols, rows });
  }
  pause(): void {
    this.paused = true;
    this.pauses += 1;
  }
  resume(): void {
    this.paused = false;
    this.pump();
  }
  close(): void {
    this.closed = true;
  }
  pump(): void {
    // Like a PTY read loop: 16 KiB reads while not paused.
    while (!this.paused && !this.closed && this.produced < this.limit) {
      const size = Math.min(16 * 1024, this.limit - this.produced);
      this.produced += size;
      this.sink.output(Buffer.alloc(size, 0x79));
    }
  }
}

interface Pair {
  table: StreamTable;
  host: StreamHost;
  sources: FloodSource[];
  violations: string[];
  /** Frames queued from the agent to the hub (delivered by deliver()). */
  toHub: string[];
  deliver(): number;
}

function pair(limit = Number.POSITIVE_INFINITY): Pair {
  const toHub: string[] = [];
  const violations: string[] = [];
  const sources: FloodSource[] = [];
  let host: StreamHost | null = null;
  const table = createStreamTable({
    assetId: 'asset-1',
    now: () => 0,
    send: (text) => {
      const frame = JSON.parse(text) as { type: string; payload: unknown };
      host?.handle(frame.type, frame.payload);
    },
    violation: (reason) => violations.push(reason),
  });
  host = new StreamHost({
    logger: silent,
    send: (text) => toHub.push(text),
    openers: {
      pty: {
        open: (_params, sink) => {
          const source = new FloodSource(sink, limit);
          sources.push(source);
          return Promise.resolve({ info: { shell: '/bin/sh', pid: 42 }, source });
        },
      },
    },
  });
  return {
    table,
    host,
    sources,
    violations,
    toHub,
    deliver() {
      const frames = toHub.splice(0);
      for (const text of frames) {
        const frame = JSON.parse(text) as { type: string; payload: unknown };
        table.receive(frame.type, frame.payload);
      }
      return frames.length;
    },
  };
}

async function settle(p: Pair): Promise<void> {
  for (let i = 0; i < 50; i += 1) {
    await new Promise((r) => setTimeout(r, 5));
    if (p.deliver() === 0 && i > 3) return;
  }
}

async function openPty(
  p: Pair,
  onData: (chunk: Buffer, handle: () => AgentStreamHandle<'pty'> | null) => void,
  ends: StreamEnd[] = [],
): Promise<AgentStreamHandle<'pty'>> {
  let handle: AgentStreamHandle<'pty'> | null = null;
  const opening = p.table.open('s1', {
    kind: 'pty',
    params: { cols: 80, rows: 24 },
    onData: (chunk) => {
      onData(chunk, () => handle);
    },
    onClose: (end) => {
      ends.push(end);
    },
  });
  await settle(p);
  handle = await opening;
  return handle;
}

describe('channel streams', () => {
  it('opens, carries input both ways and resizes', async () => {
    const p = pair(10);
    const out: Buffer[] = [];
    const handle = await openPty(p, (chunk, h) => {
      out.push(chunk);
      h()?.ack(chunk.length);
    });
    expect(handle.info).toEqual({ shell: '/bin/sh', pid: 42 });
    p.sources[0]!.pump();
    await settle(p);
    expect(Buffer.concat(out).toString()).toBe('y'.repeat(10));
    expect(handle.write(Buffer.from('ls\r'))).toBe(true);
    handle.resize(120, 40);
    await settle(p);
    expect(Buffer.concat(p.sources[0]!.input).toString()).toBe('ls\r');
    expect(p.sources[0]!.sizes).toEqual([{ cols: 120, rows: 40 }]);
  });

  it('a consumer that stops acknowledging stops the source at the window, then it resumes', async () => {
    const p = pair();
    let received = 0;
    let acking = false;
    const unacked: number[] = [];
    const handle = await openPty(p, (chunk, h) => {
      received += chunk.length;
      if (acking) h()?.ack(chunk.length);
      else unacked.push(chunk.length);
    });
    p.sources[0]!.pump();
    await settle(p);
    const source = p.sources[0]!;
    // Nothing acknowledged: the agent sent exactly the window and its source is paused, having produced at
    // most the window plus what it buffers (two chunks), not an unbounded flood.
    expect(received).toBe(streamLimits.defaultWindowBytes);
    expect(source.paused).toBe(true);
    expect(source.produced).toBeLessThanOrEqual(
      streamLimits.defaultWindowBytes + 3 * streamLimits.chunkBytes,
    );
    expect(p.violations).toEqual([]);
    // Acknowledging everything lets it go on.
    acking = true;
    handle.ack(unacked.reduce((a, b) => a + b, 0));
    await settle(p);
    expect(received).toBeGreaterThan(streamLimits.defaultWindowBytes);
    handle.close('done');
    expect(source.closed).toBe(true);
  });

  it('ends with the source, carrying its exit, after the last output', async () => {
    const p = pair(5);
    const out: Buffer[] = [];
    const ends: StreamEnd[] = [];
    await openPty(
      p,
      (chunk, h) => {
        out.push(chunk);
        h()?.ack(chunk.length);
      },
      ends,
    );
    const source = p.sources[0]!;
    source.pump();
    (source as unknown as { sink: SourceSink }).sink.end('exited', { code: 3, signal: null });
    await settle(p);
    expect(Buffer.concat(out).toString()).toBe('yyyyy');
    expect(ends).toEqual([{ reason: 'exited', by: 'agent', exit: { code: 3, signal: null } }]);
    expect(p.table.size).toBe(0);
  });

  it('an agent without an opener for the kind refuses the open as unsupported', async () => {
    const toHub: string[] = [];
    const host = new StreamHost({ logger: silent, send: (t) => toHub.push(t), openers: {} });
    const table = createStreamTable({
      assetId: 'a',
      now: () => 0,
      send: (text) => {
        const f = JSON.parse(text) as { type: string; payload: unknown };
        host.handle(f.type, f.payload);
      },
      violation: () => undefined,
    });
    const opening = table.open('s9', {
      kind: 'pty',
      params: { cols: 80, rows: 24 },
      onData() {},
      onClose() {},
    });
    for (const text of toHub) {
      const f = JSON.parse(text) as { type: string; payload: unknown };
      table.receive(f.type, f.payload);
    }
    await expect(opening).rejects.toMatchObject({ code: 'unsupported' });
  });

  it('a hostile agent: over the window is a violation; frames for no open stream are not paid', async () => {
    const p = pair(0);
    await openPty(p, () => undefined);
    const big = Buffer.alloc(streamLimits.chunkBytes).toString('base64');
    let paid = true;
    for (let i = 0; i < 10 && p.violations.length === 0; i += 1)
      paid = p.table.receive('stream.data', { stream: 's1', data: big });
    expect(paid).toBe(true);
    expect(p.violations[0]).toMatch(/window left/);
    expect(p.table.receive('stream.data', { stream: 's77', data: 'eXk=' })).toBe(false);
    expect(p.table.receive('stream.close', { stream: 's77', reason: 'x' })).toBe(false);
    p.table.receive('stream.data', { stream: 's1', data: 'eXk=', padding: 'x' });
    expect(p.violations.at(-1)).toMatch(/invalid stream.data/);
  });

  it('refuses bad parameters before sending anything', async () => {
    const p = pair(0);
    await expect(
      p.table.open('s3', { kind: 'pty', params: { cols: 0, rows: 24 }, onData() {}, onClose() {} }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
  });
});
