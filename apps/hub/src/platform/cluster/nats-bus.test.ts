import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { connect, createInbox, headers, type Msg, type NatsConnection } from 'nats';
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
import { createBusAuth } from './bus-auth.js';
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
const dropReasons: string[] = [];
/** The bus key every process of the test cluster derived from the shared hub key. */
const key = randomBytes(32);

function join(
  url = server.url,
  prefix = 'test',
  keys: readonly Buffer[] = [key],
  extra: { partialTimeoutMs?: number } = {},
): ClusterBus {
  const bus = createNatsClusterBus({
    url,
    nodeId: newNodeId(),
    keys,
    logger,
    prefix,
    reconnectWaitMs: 100,
    onDropped: (reason) => {
      drops += 1;
      dropReasons.push(reason);
    },
    ...extra,
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
async function requestOnceAnswered(
  bus: ClusterBus,
  subject: string,
  data: unknown,
  timeoutMs = 5000,
): Promise<unknown> {
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      return await bus.request(subject, data, { timeoutMs });
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
    // Until the peer's subscription is on the server, another subscriber of the subject (a raw client's
    // wildcard) keeps the server from answering "no responders": the request then waits unanswered. Ask again.
    for (let attempt = 0; ; attempt++) {
      try {
        await requestOnceAnswered(bus, subject, null, 500);
        return;
      } catch (error) {
        if (!(error instanceof ClusterTimeoutError) || attempt >= 20) throw error;
      }
    }
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

  it('runs nothing and answers nothing a raw client sends unsigned, forged, replayed, stale or re-aimed', async () => {
    const a = join();
    const b = join();
    await connected(a, b);
    const requestSubject = `svc.node.${b.nodeId}.agent.request`;
    let ran = 0;
    const events: unknown[] = [];
    b.respond(requestSubject, () => {
      ran += 1;
      return Promise.resolve('ran');
    });
    b.subscribe('svc.events', (data) => events.push(data));
    // What anyone who may publish on the NATS server can do: overhear real traffic and send anything.
    const raw: NatsConnection = await connect({ servers: `127.0.0.1:${server.port}` });
    const overheard: Msg[] = [];
    raw.subscribe('test.svc.>', { callback: (_error, msg) => overheard.push(msg) });
    const answers: Msg[] = [];
    const rawInbox = createInbox();
    raw.subscribe(`${rawInbox}.>`, { callback: (_error, msg) => answers.push(msg) });
    await raw.flush();
    await flushed(a, b);
    a.publish('svc.events', { type: 'real' });
    await expect(requestOnceAnswered(a, requestSubject, { n: 1 })).resolves.toBe('ran');
    const heard = (subject: string) => overheard.find((msg) => msg.subject === `test.${subject}`);
    await waitUntil(
      () => events.length === 1 && !!heard(requestSubject) && !!heard('svc.events'),
      'real traffic',
      300,
    );
    const realRequest = heard(requestSubject)!;
    const realEvent = heard('svc.events')!;

    const forger = createBusAuth({ nodeId: 'node_forger', keys: [randomBytes(32)] });
    const late = createBusAuth({ nodeId: 'node_raw', keys: [key], now: () => Date.now() - 60_000 });
    const insider = createBusAuth({ nodeId: 'node_raw', keys: [key] });
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const pairsOf = (msg: Msg): [string, string][] =>
      msg.headers ? msg.headers.keys().map((name) => [name, msg.headers?.get(name) ?? '']) : [];
    function send(subject: string, payload: Uint8Array, pairs: [string, string][] | null, reply?: string) {
      const hdrs = headers();
      for (const [name, value] of pairs ?? []) hdrs.set(name, value);
      raw.publish(subject, payload, { ...(pairs ? { headers: hdrs } : {}), ...(reply ? { reply } : {}) });
    }
    const before = dropReasons.length;
    const attacks = [`test.${requestSubject}`, 'test.svc.events'];
    for (const [n, subject] of attacks.entries()) {
      const reply = subject === 'test.svc.events' ? undefined : `${rawInbox}.${n}`;
      const at = reply ? { reply } : {};
      const payload = bytes({ asset_id: 'ast_1', type: 'exec.run', payload: { command: 'id' } });
      send(subject, payload, null, reply);
      send(subject, payload, forger.seal(subject, payload, at).headers, reply);
      send(subject, bytes('changed'), insider.seal(subject, payload, at).headers, reply);
      send(subject, payload, late.seal(subject, payload, at).headers, reply);
    }
    // Overheard messages sent again as they were, and a signed event aimed at the agent request subject.
    send(realRequest.subject, realRequest.data, pairsOf(realRequest), realRequest.reply);
    send(realEvent.subject, realEvent.data, pairsOf(realEvent));
    send(`test.${requestSubject}`, realEvent.data, pairsOf(realEvent), `${rawInbox}.9`);
    // Then a real message on each subject: it arrives after the others (one connection keeps its order).
    const last = bytes({ last: true });
    send('test.svc.events', last, insider.seal('test.svc.events', last).headers);
    const lastReply = `${rawInbox}.10`;
    send(
      `test.${requestSubject}`,
      last,
      insider.seal(`test.${requestSubject}`, last, { reply: lastReply }).headers,
      lastReply,
    );
    await raw.flush();
    await waitUntil(() => events.length === 2 && answers.length > 0, 'the real messages', 300);
    await flushed(a, b);
    await raw.close();

    expect(events).toEqual([{ type: 'real' }, { last: true }]);
    expect(ran).toBe(2);
    expect(answers.map((msg) => msg.subject)).toEqual([lastReply]);
    expect(dropReasons.slice(before).sort()).toEqual(
      [
        'unsigned',
        'key',
        'mac',
        'stale',
        'unsigned',
        'key',
        'mac',
        'stale',
        'replay',
        'replay',
        'subject',
      ].sort(),
    );
  });

  /** Asks until the subject has a subscriber that answers nothing in 300 ms: it dropped the request. */
  async function unanswered(bus: ClusterBus, subject: string): Promise<unknown> {
    for (let attempt = 0; attempt < 50; attempt++) {
      const error: unknown = await bus.request(subject, null, { timeoutMs: 300 }).catch((e: unknown) => e);
      if (!(error instanceof ClusterNoResponderError)) return error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`nobody subscribes to ${subject}`);
  }

  it('does not talk to a process with another key, either way', async () => {
    const a = join();
    const friend = join();
    const stranger = join(server.url, 'test', [randomBytes(32)]);
    await connected(a, friend, stranger);
    const seen: unknown[] = [];
    a.subscribe('svc.keyed', (data) => seen.push(data));
    a.respond('svc.keyed.a', () => Promise.resolve('a'));
    stranger.respond('svc.keyed.s', () => Promise.resolve('stranger'));
    await flushed(friend, a);
    const before = drops;
    const linesBefore = logLines.length;
    expect(await unanswered(a, 'svc.keyed.s')).toBeInstanceOf(ClusterTimeoutError);
    stranger.publish('svc.keyed', 'from the stranger');
    // Its request comes after its publish on one connection: once it went unanswered, both were dropped.
    expect(await unanswered(stranger, 'svc.keyed.a')).toBeInstanceOf(ClusterTimeoutError);
    expect(seen).toEqual([]);
    expect(drops - before).toBeGreaterThanOrEqual(3);
    // An operator sees why: a process with another hub key is on this NATS.
    expect(logLines.slice(linesBefore).some((line) => line.includes('another hub key'))).toBe(true);
  });

  it('rotates the key without a stop: retired keys verify, and a process staged with the next key too', async () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    // Step one: every process learns the next key (as a retired one) and still signs with the old one.
    const staged = join(server.url, 'test', [oldKey, newKey]);
    // Step two, rolling: each process signs with the next key and keeps the old one to verify.
    const rotated = join(server.url, 'test', [newKey, oldKey]);
    // Later, the old key is dropped everywhere.
    const done = join(server.url, 'test', [newKey]);
    await connected(staged, rotated, done);
    staged.respond('svc.rot.staged', () => Promise.resolve('staged'));
    rotated.respond('svc.rot.rotated', () => Promise.resolve('rotated'));
    done.respond('svc.rot.done', () => Promise.resolve('done'));
    await expect(requestOnceAnswered(rotated, 'svc.rot.staged', null)).resolves.toBe('staged');
    await expect(requestOnceAnswered(staged, 'svc.rot.rotated', null)).resolves.toBe('rotated');
    await expect(requestOnceAnswered(rotated, 'svc.rot.done', null)).resolves.toBe('done');
    expect(await unanswered(staged, 'svc.rot.done')).toBeInstanceOf(ClusterTimeoutError);
  });

  it('chunks a request above the server max_payload, joins it byte-exact, and bounds partial ones', async () => {
    const small = await startTestNatsServer({ maxPayload: 65_536 });
    try {
      const a = join(small.url);
      // Short enough to see partial requests forgotten, long enough for a whole 4 MB one to arrive on a loaded
      // machine.
      const partialTimeoutMs = 1_000;
      const b = join(small.url, 'test', [key], { partialTimeoutMs });
      await connected(a, b);
      const big = randomBytes(3 * 1024 * 1024).toString('base64');
      b.respond('svc.upload', (data) => Promise.resolve(data));
      const echoed = (await requestOnceAnswered(a, 'svc.upload', { big })) as { big: string };
      expect(echoed.big.length).toBe(big.length);
      expect(echoed.big === big).toBe(true);
      await expect(
        a.request('svc.upload', { big: 'x'.repeat(64 * 1024 * 1024) }, { timeoutMs: 5000 }),
      ).rejects.toThrow(/larger than 64 MiB/);

      // Parts of requests that never arrive whole: at most 8 kept per sender, each forgotten after its timeout.
      const raw: NatsConnection = await connect({ servers: `127.0.0.1:${small.port}` });
      const insider = createBusAuth({ nodeId: 'node_raw', keys: [key] });
      // A try of the requests above that met no responder yet may have left parts on b: let them be forgotten
      // first, so what is counted below is only what the raw client sends.
      await new Promise((resolve) => setTimeout(resolve, partialTimeoutMs + 200));
      const before = dropReasons.length;
      const part = new TextEncoder().encode('{"big":"');
      for (let n = 0; n < 9; n++) {
        const reply = `_INBOX.raw.${n}`;
        const sealed = insider.seal('test.svc.upload', part, { reply, chunk: { index: 0, count: 2 } });
        const hdrs = headers();
        for (const [name, value] of sealed.headers) hdrs.set(name, value);
        raw.publish('test.svc.upload', part, { headers: hdrs, reply });
      }
      await raw.flush();
      await raw.close();
      await waitUntil(
        () => dropReasons.slice(before).filter((r) => r === 'partial request timed out').length === 8,
        'partial requests forgotten',
        200,
      );
      expect(dropReasons.slice(before).filter((r) => r === 'chunk')).toHaveLength(1);
      // Forgotten, so the sender may send again.
      await expect(requestOnceAnswered(a, 'svc.upload', { big })).resolves.toEqual({ big });
    } finally {
      await small.dispose();
    }
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
