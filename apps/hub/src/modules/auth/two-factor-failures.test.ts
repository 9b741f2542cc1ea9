/**
 * The per-user limit on wrong second-factor codes across two processes' database handles on one store
 * (SQLite, and PostgreSQL when SVC_TEST_DATABASE_URL is set): failures noted through either count against
 * one limit, a passed check frees its slot, the window frees them all, and parallel reservations on
 * PostgreSQL never take more slots than the limit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import {
  openSharedDatabase,
  sharedDatabaseTargets,
  type SharedDatabase,
} from '../../testing/shared-database.js';
import { createTwoFactorFailures, type TwoFactorFailures } from './two-factor-failures.js';

const limit = { failures: 10, windowMs: 15 * 60 * 1000 };
const start = new Date('2026-11-26T06:00:00.000Z');
const later = (ms: number) => new Date(start.getTime() + ms);

describe.each(sharedDatabaseTargets())('two-factor failures ($name)', ({ url }) => {
  let shared: SharedDatabase | null = null;

  afterEach(async () => {
    await shared?.close();
    shared = null;
  });

  async function processesOn(count = 2): Promise<TwoFactorFailures[]> {
    shared = await openSharedDatabase(url, count);
    return shared.handles.map((h) => createTwoFactorFailures(h.db, limit));
  }

  it('refuses the 11th check on either process after 10 failures spread over both, until the window passes', async () => {
    const [a, b] = await processesOn();
    for (let i = 0; i < 10; i++) {
      const reserved = await (i % 2 === 0 ? a : b)?.reserve('usr_1', later(i * 1000));
      expect(reserved).not.toBeNull(); // not released: a wrong code
    }
    expect(await a?.reserve('usr_1', later(10_000))).toBeNull();
    expect(await b?.reserve('usr_1', later(10_000))).toBeNull();
    // Another user has slots of their own.
    expect(await a?.reserve('usr_2', later(10_000))).not.toBeNull();

    // The first failure (at 0 s) stops counting at 15 min: one slot is free, and one only.
    expect(await b?.reserve('usr_1', later(limit.windowMs))).not.toBeNull();
    expect(await a?.reserve('usr_1', later(limit.windowMs))).toBeNull();
  });

  it('frees the slot of a check that passed; a noted failure takes one', async () => {
    const [a, b] = await processesOn();
    for (let i = 0; i < 9; i++) await a?.note('usr_1', start);
    const passing = await b?.reserve('usr_1', start);
    expect(passing).not.toBeNull();
    expect(await a?.reserve('usr_1', start)).toBeNull();
    await passing?.release();
    const next = await a?.reserve('usr_1', start);
    expect(next).not.toBeNull();
    // Noting past the limit counts nothing more (and refuses nothing: it is not a check).
    await b?.note('usr_1', start);
    const rows = await shared?.handles[0]?.db.selectFrom('two_factor_failures').selectAll().execute();
    expect(rows).toHaveLength(10);
  });

  it('purges expired failures at a retention run, and only those', async () => {
    const [a] = await processesOn();
    await a?.note('usr_1', start);
    await a?.note('usr_1', later(60_000));
    const cutoff = later(limit.windowMs + 1).toISOString();
    expect(await a?.retention.purgeBatch(cutoff, 100)).toBe(1);
    const rows = await shared?.handles[0]?.db.selectFrom('two_factor_failures').selectAll().execute();
    expect(rows).toHaveLength(1);
  });

  it.skipIf(url === null)('lets no more than 10 of 30 parallel checks on three processes run', async () => {
    const processes = await processesOn(3);
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => processes[i % processes.length]!.reserve('usr_1', start)),
    );
    expect(results.filter((r) => r !== null)).toHaveLength(10);
    const rows = await shared?.handles[0]?.db.selectFrom('two_factor_failures').selectAll().execute();
    expect(rows?.map((r) => r.slot).sort((x, y) => x - y)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });
});
