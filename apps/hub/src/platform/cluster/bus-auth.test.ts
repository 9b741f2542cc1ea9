import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { busHeaders, createBusAuth } from './bus-auth.js';

const key = randomBytes(32);
const payload = new TextEncoder().encode('{"n":1}');

function reader(pairs: [string, string][]) {
  const map = new Map(pairs);
  return { get: (name: string) => map.get(name) ?? '' };
}

describe('cluster bus signatures', () => {
  it('opens what a process with the same key sealed, once, on the subject and reply it was sent with', () => {
    let now = 1_000_000;
    const sender = createBusAuth({ nodeId: 'node_a', keys: [key], now: () => now });
    const receiver = createBusAuth({ nodeId: 'node_b', keys: [key], now: () => now });
    const sealed = sender.seal('svc.x', payload, { reply: '_INBOX.a.1' });
    const arrived = { subject: 'svc.x', reply: '_INBOX.a.1' };
    expect(receiver.open(arrived, reader(sealed.headers), payload)).toEqual({
      ok: true,
      id: sealed.id,
      from: 'node_a',
      re: '',
      chunk: null,
      batch: null,
    });
    expect(receiver.open(arrived, reader(sealed.headers), payload)).toEqual({ ok: false, reason: 'replay' });

    const again = sender.seal('svc.x', payload, { reply: '_INBOX.a.2' });
    // The answer would go to someone else's inbox.
    expect(
      receiver.open({ subject: 'svc.x', reply: '_INBOX.evil.1' }, reader(again.headers), payload),
    ).toEqual({
      ok: false,
      reason: 'mac',
    });
    const answer = sender.seal('_INBOX.b.7', payload, { re: sealed.id, chunk: { index: 1, count: 3 } });
    expect(
      receiver.open({ subject: '_INBOX.b.7', reply: '' }, reader(answer.headers), payload),
    ).toMatchObject({
      ok: true,
      re: sealed.id,
      chunk: { index: 1, count: 3 },
    });
    now += 31_000;
    const old = sender.seal('svc.x', payload);
    now -= 62_000;
    expect(receiver.open({ subject: 'svc.x', reply: '' }, reader(old.headers), payload)).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('refuses a chunk position that cannot be, and a mac of the wrong length', () => {
    const auth = createBusAuth({ nodeId: 'node_a', keys: [key] });
    const sealed = auth.seal('svc.x', payload);
    const swapped = (name: string, value: string) =>
      reader(
        sealed.headers
          .map(([n, v]) => [n, n === name ? value : v] as [string, string])
          .concat([[name, value]]),
      );
    const arrived = { subject: 'svc.x', reply: '' };
    expect(auth.open(arrived, swapped(busHeaders.chunk, '2/2'), payload)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(auth.open(arrived, swapped(busHeaders.mac, 'AAAA'), payload)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(auth.open(arrived, swapped(busHeaders.from, 'node a'), payload)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(auth.open(arrived, undefined, payload)).toEqual({ ok: false, reason: 'unsigned' });
  });

  it('signs a batch under its own tag and count: it cannot pass for a single message, nor the reverse', () => {
    const sender = createBusAuth({ nodeId: 'node_a', keys: [key] });
    const receiver = createBusAuth({ nodeId: 'node_b', keys: [key] });
    const arrived = { subject: 'svc.x', reply: '' };
    const values = new TextEncoder().encode('[{"n":1},{"n":2}]');
    const batch = sender.seal('svc.x', values, { batch: 2 });
    expect(receiver.open(arrived, reader(batch.headers), values)).toMatchObject({ ok: true, batch: 2 });
    const withoutCount = sender
      .seal('svc.x', values, { batch: 2 })
      .headers.filter(([n]) => n !== busHeaders.batch);
    expect(receiver.open(arrived, reader(withoutCount), values)).toEqual({ ok: false, reason: 'mac' });
    const single = sender.seal('svc.x', values);
    expect(receiver.open(arrived, reader([...single.headers, [busHeaders.batch, '2']]), values)).toEqual({
      ok: false,
      reason: 'mac',
    });
    // Counts a batch cannot have, and a batch in chunks.
    for (const count of ['1', '0', '10001', '2a']) {
      const fresh = sender.seal('svc.x', values, { batch: 2 }).headers;
      const changed = fresh.map(([n, v]) => [n, n === busHeaders.batch ? count : v] as [string, string]);
      expect(receiver.open(arrived, reader(changed), values)).toEqual({ ok: false, reason: 'malformed' });
    }
    const chunked = sender.seal('svc.x', values, { chunk: { index: 0, count: 2 } });
    expect(receiver.open(arrived, reader([...chunked.headers, [busHeaders.batch, '2']]), values)).toEqual({
      ok: false,
      reason: 'malformed',
    });
    expect(() => sender.seal('svc.x', values, { batch: 1 })).toThrow('invalid batch count');
    expect(() => sender.seal('svc.x', values, { batch: 2, chunk: { index: 0, count: 2 } })).toThrow(
      'invalid batch count',
    );
  });

  it('keeps its replay cache bounded: an id it had to forget is refused as too old', () => {
    let now = 5_000_000;
    const sender = createBusAuth({ nodeId: 'node_a', keys: [key], now: () => now });
    const receiver = createBusAuth({ nodeId: 'node_b', keys: [key], now: () => now, replayCapacity: 3 });
    const arrived = { subject: 'svc.x', reply: '' };
    const first = sender.seal('svc.x', payload);
    now += 1;
    const rest = [1, 2, 3].map(() => sender.seal('svc.x', payload));
    for (const sealed of [first, ...rest])
      expect(receiver.open(arrived, reader(sealed.headers), payload)).toMatchObject({ ok: true });
    // `first` left the full cache: its replay is refused all the same.
    expect(receiver.open(arrived, reader(first.headers), payload)).toEqual({ ok: false, reason: 'replay' });
    // Out of the window, entries leave by time.
    now += 40_000;
    const later = sender.seal('svc.x', payload);
    expect(receiver.open(arrived, reader(later.headers), payload)).toMatchObject({ ok: true });
  });
});
