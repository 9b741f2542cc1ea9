/**
 * Leases across two processes' database handles on one store (SQLite, and PostgreSQL when
 * SVC_TEST_DATABASE_URL is set): never two holders, a dead holder's lease taken over after it expires, a
 * clean stop handing it over at once, and a cluster of one holding everything without the table.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../clock.js';
import {
  openSharedDatabase,
  sharedDatabaseTargets,
  type SharedDatabase,
} from '../../testing/shared-database.js';
import { createLeaseKeeper, type LeaseKeeper } from './leases.js';

const ttlMs = 15_000;

describe.each(sharedDatabaseTargets())('leases ($name)', ({ url }) => {
  let shared: SharedDatabase | null = null;
  const keepers: LeaseKeeper[] = [];

  afterEach(async () => {
    for (const keeper of keepers.splice(0)) await keeper.close();
    await shared?.close();
    shared = null;
  });

  async function twoKeepers(clock: ManualClock, names = ['alerts']) {
    shared = await openSharedDatabase(url);
    const [a, b] = shared.handles.map((database, i) =>
      createLeaseKeeper({
        db: database.db,
        clock,
        nodeId: `node_${i === 0 ? 'a' : 'b'}`,
        names,
        shared: true,
        ttlMs,
        renewMs: 0,
        onError: (e) => {
          throw e;
        },
      }),
    );
    keepers.push(a!, b!);
    return { a: a!, b: b!, shared };
  }

  it('gives a lease to one process; the other takes it only after it expired', async () => {
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
    const { a, b } = await twoKeepers(clock);
    expect(await a.renew()).toEqual(['alerts']);
    expect(await b.renew()).toEqual([]);
    expect(a.holds('alerts')).toBe(true);
    expect(b.holds('alerts')).toBe(false);

    // A keeps renewing: B never gets it.
    clock.advance(ttlMs / 3);
    expect(await a.renew()).toEqual(['alerts']);
    clock.advance(ttlMs / 2);
    expect(await b.renew()).toEqual([]);

    // A stops renewing (it died): it stops believing it holds the lease before the lease expires.
    clock.advance(ttlMs * (2 / 3) - ttlMs / 2);
    expect(a.holds('alerts')).toBe(false);
    expect(await b.renew()).toEqual([]);
    clock.advance(ttlMs / 3 + 1);
    expect(await b.renew()).toEqual(['alerts']);
    expect(b.holds('alerts')).toBe(true);
    // A comes back: the lease is B's now.
    expect(await a.renew()).toEqual([]);
  });

  it('never has two holders when both race for an expired lease', async () => {
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
    const names = ['alerts', 'connectors', 'retention'];
    const { a, b } = await twoKeepers(clock, names);
    for (let round = 0; round < 20; round++) {
      const [heldA, heldB] = await Promise.all([a.renew(), b.renew()]);
      for (const name of names) {
        expect(Number(heldA.includes(name)) + Number(heldB.includes(name))).toBeLessThanOrEqual(1);
      }
      // Every lease has a holder, and both views agree with the table.
      expect([...heldA, ...heldB].sort()).toEqual([...names].sort());
      // Let every lease expire, so the next round races again.
      clock.advance(ttlMs + 1);
    }
  });

  it('hands a lease over at once on a clean stop', async () => {
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
    const { a, b } = await twoKeepers(clock);
    await a.renew();
    await a.close();
    expect(a.holds('alerts')).toBe(false);
    expect(await b.renew()).toEqual(['alerts']);
  });

  it('holds every lease in a cluster of one, writing nothing', async () => {
    shared = await openSharedDatabase(url, 1);
    const clock = new ManualClock();
    const keeper = createLeaseKeeper({
      db: shared.handles[0]!.db,
      clock,
      nodeId: 'node_single',
      names: ['alerts'],
      shared: false,
    });
    await keeper.start();
    expect(keeper.holds('alerts')).toBe(true);
    expect(await shared.handles[0]!.db.selectFrom('cluster_leases').selectAll().execute()).toEqual([]);
    await keeper.close();
    expect(keeper.holds('alerts')).toBe(false);
  });
});
