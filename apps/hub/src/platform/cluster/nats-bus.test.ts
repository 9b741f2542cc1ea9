import { Writable } from 'node:stream';
import { connect, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../logger.js';
import { startTestNatsServer, waitUntil, type TestNatsServer } from '../../testing/nats-server.js';
import {
  ClusterNoResponderError,
  ClusterRemoteError,
  ClusterTimeoutError,
  ClusterUnavailableError,
  newNodeId,
  type ClusterBus,
} from './cluster-bus.js';
import { createNatsClusterBus } from './nats-bus.js';

const logLines: string[] = [];
const logger = createLogger(
  'info',
  new Writable({
    write(chunk: Buffer, _encoding, done) {
      logLines.push(chunk.toString());
      done();
    },
  }),
);

let server: TestNatsServer;
const buses: ClusterBus[] = [];
let drops = 0;

function join(url = server.url, prefix = 'test'): ClusterBus {
  const bus = createNatsClusterBus({
    url,
    nodeId: newNodeId(),
    logger,
    prefix,
    reconnectWaitMs: 100,
    onDropped: () => {
      drops += 1;
    },
  });
  buses.push(bus);
  return bus;
}

async function connected(...list: ClusterBus[]): Promise<void> {
  await waitUntil(() => list.every((bus) => bus.status().connected), 'buses connected');
}

/** Resolves with the next message the handler receives (or rejects after a bounded wait). */
function nextMessage(bus: ClusterBus, subject: string): Promise<{ data: unknown; from: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`nothing on ${subject}`));
    }, 5000);
    const off = bus.subscribe(subject, (data, meta) => {
      clearTimeout(timer);
      off();
      resolve({ data, from: meta.from });
    });
  });
}

/**
 * A request retried while nobody answers yet: a subscription made on one connection reaches the server in
 * its own time, unordered with what another connection sends.
 */
async function requestOnceAnswered(bus: ClusterBus, subject: string, data: unknown): Promise<unknown> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await bus.request(subject, data, { timeoutMs: 5000 });
    } catch (error) {
      if (!(error instanceof ClusterNoResponderError)) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  throw new Error(`nobody answers ${subject}`);
}

let flushes = 0;

/**
 * A round trip from `bus` to `peer`: the peer's earlier subscriptions are on the server when it resolves, and
 * what `peer` published before has reached `bus` (one connection's messages keep their order).
 */
async function flushed(bus: ClusterBus, peer: ClusterBus): Promise<void> {
  flushes += 1;
  const subject = `svc.flush${flushes}`;
  const off = peer.respond(subject, () => Promise.resolve('ok'));
  try {
    await requestOnceAnswered(bus, subject, null);
  } finally {
    off();
  }
}

beforeAll(async () => {
  server = await startTestNatsServer();
});

afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await server.dispose();
});

describe('the NATS cluster bus', () => {
  it('delivers a publish to the other process, never back to the sender', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    const seenByA: unknown[] = [];
    a.subscribe('svc.news', (data) => seenByA.push(data));
    const atB = nextMessage(b, 'svc.news');
    // Subscriptions reach the server before the publish: a round trip settles them.
    await flushed(a, b);
    a.publish('svc.news', { n: 1 });
    expect(await atB).toEqual({ data: { n: 1 }, from: a.nodeId });
    await flushed(b, a);
    expect(seenByA).toEqual([]);
  });

  it('answers a request from another process, not from itself', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    b.respond('svc.echo', (data, meta) => Promise.resolve({ echo: data, from: meta.from }));
    a.respond('svc.echo', () => Promise.resolve('self'));
    await expect(requestOnceAnswered(b, 'svc.echo', 'x')).resolves.toBe('self');
    await expect(requestOnceAnswered(a, 'svc.echo', 'hi')).resolves.toEqual({
      echo: 'hi',
      from: a.nodeId,
    });
  });

  it('gives a request to one member of a queue group', async () => {
    const a = join();
    const members = [join(), join(), join()];
    await connected(a, ...members);
    let answered = 0;
    for (const member of members) {
      member.respond(
        'svc.work',
        () => {
          answered += 1;
          return Promise.resolve(member.nodeId);
        },
        { queue: 'workers' },
      );
    }
    for (const member of members) await flushed(a, member);
    const answer = await a.request('svc.work', null, { timeoutMs: 5000 });
    expect(members.map((m) => m.nodeId)).toContain(answer);
    for (const member of members) await flushed(a, member);
    expect(answered).toBe(1);
  });

  it('tells no responders, a timeout and a remote error apart', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    await expect(a.request('svc.nobody', null, { timeoutMs: 5000 })).rejects.toBeInstanceOf(
      ClusterNoResponderError,
    );
    b.respond('svc.slow', () => new Promise(() => undefined));
    b.respond('svc.fails', () => Promise.reject(new Error('disk full on node b')));
    await flushed(a, b);
    await expect(a.request('svc.slow', null, { timeoutMs: 200 })).rejects.toBeInstanceOf(ClusterTimeoutError);
    const error: unknown = await a.request('svc.fails', null, { timeoutMs: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClusterRemoteError);
    expect((error as Error).message).toBe('disk full on node b');
    expect((error as Error).stack).not.toContain('nats-bus.test');
  });

  it('joins a 5 MiB answer sent in chunks', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    const big = 'x'.repeat(5 * 1024 * 1024);
    b.respond('svc.big', () => Promise.resolve({ big }));
    const answer = (await requestOnceAnswered(a, 'svc.big', null)) as { big: string };
    expect(answer.big.length).toBe(big.length);
    expect(answer.big === big).toBe(true);
  });

  it('drops garbage on its subjects and counts it', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    const seen: unknown[] = [];
    b.subscribe('svc.garbage', (data) => seen.push(data));
    const raw: NatsConnection = await connect({ servers: `127.0.0.1:${server.port}` });
    const before = drops;
    await flushed(a, b);
    raw.publish('test.svc.garbage', new TextEncoder().encode('{not json'));
    raw.publish('test.svc.garbage', new TextEncoder().encode(JSON.stringify({ v: 1, from: 'x y', data: 1 })));
    raw.publish(
      'test.svc.garbage',
      new TextEncoder().encode(JSON.stringify({ v: 2, from: 'node_1', data: 1 })),
    );
    // Valid, from the same connection: it arrives after the garbage.
    raw.publish(
      'test.svc.garbage',
      new TextEncoder().encode(JSON.stringify({ v: 1, from: a.nodeId, data: 'real' })),
    );
    await raw.flush();
    await raw.close();
    await waitUntil(() => seen.length > 0, 'the real message');
    expect(seen).toEqual(['real']);
    expect(drops - before).toBe(3);
  });

  it('fails requests at once while NATS is down and works again after', async () => {
    const own = await startTestNatsServer();
    try {
      const a = join(own.url);
      const b = join(own.url);
      await connected(a, b);
      b.respond('svc.ping', () => Promise.resolve('pong'));
      await expect(requestOnceAnswered(a, 'svc.ping', null)).resolves.toBe('pong');

      await own.stop();
      await waitUntil(() => !a.status().connected, 'a sees NATS down');
      expect(a.status().reason).toMatch(/disconnected/);
      await expect(a.request('svc.ping', null, { timeoutMs: 60_000 })).rejects.toBeInstanceOf(
        ClusterUnavailableError,
      );

      await own.start();
      await waitUntil(() => a.status().connected && b.status().connected, 'both reconnected', 200);
      let answer: unknown = null;
      for (let attempt = 0; attempt < 50 && answer === null; attempt++) {
        answer = await a.request('svc.ping', null, { timeoutMs: 1000 }).catch(() => null);
        if (answer === null) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(answer).toBe('pong');
      expect(logLines.some((line) => line.includes('cluster bus disconnected'))).toBe(true);
      expect(logLines.some((line) => line.includes('cluster bus reconnected'))).toBe(true);
    } finally {
      await own.dispose();
    }
  });

  it('never logs the password of the URL', async () => {
    const bus = join(`nats://svc:s3cret-pw@127.0.0.1:1`);
    await waitUntil(() => logLines.some((line) => line.includes('cluster bus not connected')), 'log line');
    expect(bus.status()).toMatchObject({ connected: false });
    expect(logLines.join('\n')).not.toContain('s3cret-pw');
    await expect(bus.request('svc.ping', null, { timeoutMs: 5000 })).rejects.toBeInstanceOf(
      ClusterUnavailableError,
    );
  });
});
