/**
 * Publishes of one turn gathered into signed batches on the NATS bus (decision 0083), against a real
 * nats-server: what another process receives, what a raw NATS client sees on the wire, and what a receiver
 * refuses.
 */
import { randomBytes } from 'node:crypto';
import { connect, headers, type Msg, type NatsConnection } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventPayload } from '@svc/protocol';
import { systemClock } from '../clock.js';
import { createClusterEventBus, type HubEvent } from '../event-bus.js';
import { silentLogger } from '../logger.js';
import { startTestNatsServer, waitUntil, type TestNatsServer } from '../../testing/nats-server.js';
import { ClusterNoResponderError, ClusterTimeoutError, newNodeId, type ClusterBus } from './cluster-bus.js';
import { busHeaders, createBusAuth } from './bus-auth.js';
import { createNatsClusterBus } from './nats-bus.js';
import { batchLimits } from './nats-wire.js';

/** A server with a small max_payload, so a batch's size bound is met by the message size. */
const maxPayload = 64 * 1024;
let server: TestNatsServer;
const buses: ClusterBus[] = [];
const dropReasons: string[] = [];
const key = randomBytes(32);
let prefixes = 0;

/** Two processes of one cluster on a prefix of their own, and a raw client overhearing their subjects. */
async function cluster(): Promise<{
  a: ClusterBus;
  b: ClusterBus;
  raw: NatsConnection;
  heard: Msg[];
  prefix: string;
}> {
  prefixes += 1;
  const prefix = `batch${String(prefixes)}`;
  const join = () => {
    const bus = createNatsClusterBus({
      url: server.url,
      nodeId: newNodeId(),
      keys: [key],
      logger: silentLogger,
      prefix,
      reconnectWaitMs: 100,
      onDropped: (reason) => dropReasons.push(reason),
    });
    buses.push(bus);
    return bus;
  };
  const a = join();
  const b = join();
  await waitUntil(() => a.status().connected && b.status().connected, 'buses connected');
  const raw = await connect({ servers: `127.0.0.1:${String(server.port)}` });
  const heard: Msg[] = [];
  raw.subscribe(`${prefix}.svc.>`, { callback: (_error, msg) => heard.push(msg) });
  await raw.flush();
  return { a, b, raw, heard, prefix };
}

/**
 * A round trip from `a` to `b`: b's subscriptions are on the server, and what `a` published before it has
 * reached b (a request leaves after the batch being gathered, and one connection keeps its order).
 */
async function settled(a: ClusterBus, b: ClusterBus): Promise<void> {
  const subject = `svc.settle${randomBytes(4).toString('hex')}`;
  const off = b.respond(subject, () => Promise.resolve('ok'));
  try {
    // Until b's subscription is on the server, the raw client's wildcard keeps the server from answering
    // "no responders": the request then waits unanswered. Ask again either way.
    for (let attempt = 0; attempt < 40; attempt++) {
      try {
        await a.request(subject, null, { timeoutMs: 500 });
        return;
      } catch (error) {
        if (!(error instanceof ClusterNoResponderError) && !(error instanceof ClusterTimeoutError))
          throw error;
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    throw new Error('the peer never answered');
  } finally {
    off();
  }
}

const onSubject = (heard: Msg[], subject: string) => heard.filter((msg) => msg.subject === subject);

beforeAll(async () => {
  server = await startTestNatsServer({ maxPayload });
});

afterAll(async () => {
  await Promise.all(buses.map((bus) => bus.close()));
  await server.dispose();
});

describe('batches on the NATS cluster bus', () => {
  it('sends what one turn publishes on a subject as one signed message, delivered as each value in order', async () => {
    const { a, b, raw, heard, prefix } = await cluster();
    const received: unknown[] = [];
    b.subscribe('svc.news', (data, meta) => received.push({ data, from: meta.from }));
    await settled(a, b);
    for (let n = 0; n < 200; n++) a.publish('svc.news', { n });
    await settled(a, b);
    await raw.flush();

    expect(received).toEqual(Array.from({ length: 200 }, (_, n) => ({ data: { n }, from: a.nodeId })));
    const onWire = onSubject(heard, `${prefix}.svc.news`);
    expect(onWire).toHaveLength(1);
    expect(onWire[0]?.headers?.get(busHeaders.batch)).toBe('200');

    // A publish alone in its turn is the single message it always was: no batch header.
    a.publish('svc.news', { n: 200 });
    await settled(a, b);
    await raw.flush();
    expect(received.at(-1)).toEqual({ data: { n: 200 }, from: a.nodeId });
    const single = onSubject(heard, `${prefix}.svc.news`)[1];
    expect(single?.headers?.get(busHeaders.batch)).toBe('');
    await raw.close();
  });

  it('keeps the order of what one process sends across subjects and requests', async () => {
    const { a, b, raw } = await cluster();
    const seen: string[] = [];
    b.subscribe('svc.x', (data) => seen.push(`x${String(data)}`));
    b.subscribe('svc.y', (data) => seen.push(`y${String(data)}`));
    b.respond('svc.ask', (data) => {
      seen.push(`ask${String(data)}`);
      return Promise.resolve(null);
    });
    await settled(a, b);
    a.publish('svc.x', 1);
    a.publish('svc.x', 2);
    a.publish('svc.y', 3);
    a.publish('svc.x', 4);
    const asked = a.request('svc.ask', 5, { timeoutMs: 5000 });
    a.publish('svc.x', 6);
    await asked;
    await settled(a, b);
    expect(seen).toEqual(['x1', 'x2', 'y3', 'x4', 'ask5', 'x6']);
    await raw.close();
  });

  it('splits a batch at its bounds: the bytes a message may hold and the values a batch may carry', async () => {
    const { a, b, raw, heard, prefix } = await cluster();
    const received: number[] = [];
    b.subscribe('svc.bulk', (data) => received.push((data as { n: number }).n));
    await settled(a, b);
    // 40 values of 4 KiB: more than one 64 KiB message holds.
    const pad = 'p'.repeat(4096);
    for (let n = 0; n < 40; n++) a.publish('svc.bulk', { n, pad });
    await settled(a, b);
    await raw.flush();
    const big = onSubject(heard, `${prefix}.svc.bulk`);
    expect(big.length).toBeGreaterThan(2);
    for (const msg of big) expect(msg.data.length).toBeLessThanOrEqual(maxPayload);
    expect(big.every((msg) => msg.headers?.get(busHeaders.chunk) === '')).toBe(true);
    expect(received).toEqual(Array.from({ length: 40 }, (_, n) => n));

    // Small values: a batch closes at its count.
    const count = batchLimits.values * 2 + 5;
    for (let n = 0; n < count; n++) a.publish('svc.bulk', { n: 100 + n });
    await settled(a, b);
    await raw.flush();
    const small = onSubject(heard, `${prefix}.svc.bulk`).slice(big.length);
    expect(small.map((msg) => msg.headers?.get(busHeaders.batch))).toEqual([
      String(batchLimits.values),
      String(batchLimits.values),
      '5',
    ]);
    expect(received.slice(40)).toEqual(Array.from({ length: count }, (_, n) => 100 + n));
    await raw.close();
  });

  it('refuses a tampered, recounted, replayed or re-labelled batch whole, and any batched request', async () => {
    const { a, b, raw, heard, prefix } = await cluster();
    const received: unknown[] = [];
    let ran = 0;
    b.subscribe('svc.events', (data) => received.push(data));
    b.respond('svc.run', () => {
      ran += 1;
      return Promise.resolve('ran');
    });
    await settled(a, b);
    a.publish('svc.events', { n: 1 });
    a.publish('svc.events', { n: 2 });
    a.publish('svc.events', { n: 3 });
    await settled(a, b);
    a.publish('svc.events', { n: 4 });
    await settled(a, b);
    await raw.flush();
    const subject = `${prefix}.svc.events`;
    const batch = onSubject(heard, subject)[0] as Msg;
    const single = onSubject(heard, subject)[1] as Msg;
    expect(batch.headers?.get(busHeaders.batch)).toBe('3');
    expect(received).toHaveLength(4);

    const pairsOf = (msg: Msg): [string, string][] =>
      msg.headers ? msg.headers.keys().map((name) => [name, msg.headers?.get(name) ?? '']) : [];
    function send(to: string, payload: Uint8Array, pairs: [string, string][], reply?: string): void {
      const hdrs = headers();
      for (const [name, value] of pairs) hdrs.set(name, value);
      raw.publish(to, payload, { headers: hdrs, ...(reply ? { reply } : {}) });
    }
    const with_ = (pairs: [string, string][], name: string, value: string): [string, string][] => [
      ...pairs.filter(([n]) => n !== name),
      [name, value],
    ];
    const bytes = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
    const insider = createBusAuth({ nodeId: 'node_raw', keys: [key] });
    const before = dropReasons.length;

    // One value changed: the whole batch goes, not only that value.
    send(subject, bytes([{ n: 1 }, { n: 2 }, { n: 666 }]), pairsOf(batch));
    // The count changed: it is signed.
    send(subject, batch.data, with_(pairsOf(batch), busHeaders.batch, '2'));
    // Sent again as it was.
    send(subject, batch.data, pairsOf(batch));
    // A single message's signature presented as a batch of one payload that is an array.
    send(subject, bytes([{ n: 4 }, { n: 4 }]), with_(pairsOf(single), busHeaders.batch, '2'));
    // Signed with the key, but its count does not match its array.
    const liar = bytes([{ n: 7 }, { n: 8 }]);
    send(subject, liar, insider.seal(subject, liar, { batch: 3 }).headers);
    // A batch is never a request.
    const asks = bytes([null, null]);
    const requestSubject = `${prefix}.svc.run`;
    send(
      requestSubject,
      asks,
      insider.seal(requestSubject, asks, { reply: 'inbox.x', batch: 2 }).headers,
      'inbox.x',
    );
    // Then a real one, which arrives after the others.
    const last = bytes({ last: true });
    send(subject, last, insider.seal(subject, last).headers);
    await raw.flush();
    await waitUntil(() => received.length === 5, 'the real message');
    await settled(a, b);

    expect(received).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }, { last: true }]);
    expect(ran).toBe(0);
    expect(dropReasons.slice(before).sort()).toEqual(
      ['batch', 'batch', 'mac', 'mac', 'mac', 'replay'].sort(),
    );
    await raw.close();
  });

  it('carries a turn of events to another process: each subscriber there hears only what its filter lets in', async () => {
    const { a, b, raw, heard, prefix } = await cluster();
    const atA = createClusterEventBus({ clock: systemClock, bus: a });
    const atB = createClusterEventBus({ clock: systemClock, bus: b });
    const execs: HubEvent[] = [];
    const deletions: HubEvent[] = [];
    const originOnly: HubEvent[] = [];
    atB.subscribe((e) => execs.push(e), { types: ['exec.completed'], reach: 'cluster' });
    atB.subscribe((e) => deletions.push(e), { types: ['asset.deleted'], reach: 'cluster' });
    atB.subscribe((e) => originOnly.push(e));
    await settled(a, b);
    const completed = (n: number): EventPayload<'exec.completed'> => ({
      asset_ids: [`ast_${String(n)}`],
      asset_id: `ast_${String(n)}`,
      status: 'ok',
      exit_code: 0,
      duration_ms: n,
      truncated: false,
    });
    const published = Array.from({ length: 500 }, (_, n) => atA.publish('exec.completed', completed(n)));
    await settled(a, b);
    await raw.flush();

    expect(execs).toEqual(published);
    expect(deletions).toEqual([]);
    expect(originOnly).toEqual([]);
    expect(onSubject(heard, `${prefix}.svc.events`).length).toBeLessThan(5);
    atA.close();
    atB.close();
    await raw.close();
  });
});
