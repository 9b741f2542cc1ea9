/**
 * Digest sends under a lease across two processes' database handles on one store (SQLite, and PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): a taken window is its taker's until sent; one whose lease expired unsent is
 * taken again by one process only; one given back is taken again at once; one marked sent is gone.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  openSharedDatabase,
  sharedDatabaseTargets,
  type SharedDatabase,
} from '../../testing/shared-database.js';
import { createDigestStore, type DigestStore } from './digest-store.js';

const leaseMs = 60_000;
const start = new Date('2026-11-26T06:00:00.000Z');
const later = (ms: number) => new Date(start.getTime() + ms);
const target = 'notifications:nch_1';

describe.each(sharedDatabaseTargets())('digest sends ($name)', ({ url }) => {
  let shared: SharedDatabase | null = null;

  afterEach(async () => {
    await shared?.close();
    shared = null;
  });

  /** Two processes' stores, with a window of two items that ended at 60 s. */
  async function endedWindow(): Promise<{ a: DigestStore; b: DigestStore }> {
    shared = await openSharedDatabase(url);
    const [a, b] = shared.handles.map((h) => createDigestStore(h.db));
    if (!a || !b) throw new Error('two handles expected');
    await a.add(target, 60, JSON.stringify({ n: 1 }), start);
    await b.add(target, 60, JSON.stringify({ n: 2 }), later(1000));
    return { a, b };
  }

  it('takes a window once; its send is retaken only after the lease, by one process', async () => {
    const { a, b } = await endedWindow();
    const taken = await a.take(target, later(60_000), leaseMs);
    expect(taken?.items).toEqual(['{"n":1}', '{"n":2}']);
    expect(await b.take(target, later(60_000), leaseMs)).toBeNull();
    expect(await b.retake('notifications:', later(60_000 + leaseMs - 1), leaseMs, 10)).toEqual([]);

    // A died: after its lease one of A and B takes the send again, with the same items.
    const at = later(60_000 + leaseMs);
    const [onA, onB] = await Promise.all([
      a.retake('notifications:', at, leaseMs, 10),
      b.retake('notifications:', at, leaseMs, 10),
    ]);
    const retaken = [...onA, ...onB];
    expect(retaken).toHaveLength(1);
    expect(retaken[0]?.items).toEqual(['{"n":1}', '{"n":2}']);
    expect(retaken[0]?.target).toBe(target);
    // Another kind's sweep does not see it.
    expect(await a.retake('push:', later(10 * leaseMs), leaseMs, 10)).toEqual([]);

    await retaken[0]?.sent();
    expect(await b.retake('notifications:', later(10 * leaseMs), leaseMs, 10)).toEqual([]);
  });

  it('takes a send given back at once, and one marked sent never again', async () => {
    const { a, b } = await endedWindow();
    const taken = await a.take(target, later(60_000), leaseMs);
    await taken?.release();
    const [again] = await b.retake('notifications:', later(60_001), leaseMs, 10);
    expect(again?.items).toHaveLength(2);
    // The first taker's claim is gone: its late release does not give B's back.
    await taken?.release();
    expect(await a.retake('notifications:', later(60_002), leaseMs, 10)).toEqual([]);
    await again?.sent();
    expect(await a.retake('notifications:', later(10 * leaseMs), leaseMs, 10)).toEqual([]);
  });

  it('keeps a new window apart from a send still leased', async () => {
    const { a, b } = await endedWindow();
    const taken = await a.take(target, later(60_000), leaseMs);
    await b.add(target, 60, JSON.stringify({ n: 3 }), later(61_000));
    const next = await b.take(target, later(121_000), leaseMs);
    expect(next?.items).toEqual(['{"n":3}']);
    expect(taken?.items).toHaveLength(2);
  });

  it('forgets the sends of a target dropped', async () => {
    const { a, b } = await endedWindow();
    await a.take(target, later(60_000), leaseMs);
    await b.drop(target);
    expect(await b.retake('notifications:', later(10 * leaseMs), leaseMs, 10)).toEqual([]);
  });
});
