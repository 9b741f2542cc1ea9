/**
 * Schedules across two hub processes on one database (decision 0040): two schedulers that pass at the same
 * moment claim each tick once, so it runs once; a process that starts leaves its live peers' runs alone, and
 * the runs of a process that is gone are reported interrupted by the one the registry tells.
 * On PostgreSQL (SVC_TEST_DATABASE_URL), which several processes need.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ExecManyResult } from '@svc/protocol';
import { ManualClock } from '../../platform/clock.js';
import { createInProcessEventBus } from '../../platform/event-bus.js';
import { silentLogger } from '../../platform/logger.js';
import { openSharedDatabase, sharedPostgresUrl, type SharedDatabase } from '../../testing/shared-database.js';
import type { HubDatabase } from '../../platform/db/database.js';
import { createAuditService } from '../audit/audit.service.js';
import { createScheduler, type Scheduler } from './scheduler.js';

const runAs = JSON.stringify({
  authType: 'api_key',
  userId: null,
  keyId: null,
  keyName: null,
  role: 'admin',
  scopes: ['*'],
  allowedAssets: null,
});

const url = sharedPostgresUrl();

describe.skipIf(url === null)('schedules across processes (postgres)', () => {
  let shared: SharedDatabase | null = null;
  const schedulers: Scheduler[] = [];

  afterEach(async () => {
    for (const s of schedulers.splice(0)) await s.close();
    await shared?.close();
    shared = null;
  });

  function schedulerOn(
    database: HubDatabase,
    clock: ManualClock,
    nodeId: string,
    live: string[],
    runs: string[],
  ): Scheduler {
    const scheduler = createScheduler({
      db: database.db,
      clock,
      audit: createAuditService({ db: database.db, clock }),
      events: createInProcessEventBus({ clock }),
      exec: {
        runMany: () => {
          runs.push(nodeId);
          const result: ExecManyResult = {
            results: [],
            summary: { total: 0, ok: 0, timeout: 0, offline: 0, error: 0 },
          };
          return Promise.resolve(result);
        },
      },
      actions: { load: () => Promise.reject(new Error('no actions here')) },
      keys: { expiryOf: () => Promise.resolve({ expiresAt: null }) },
      users: { account: () => Promise.reject(new Error('no users here')) },
      maintenance: { outside: () => Promise.resolve([]) },
      logger: silentLogger,
      pollMs: 60_000,
      cluster: { nodeId, liveNodes: () => new Set(live) },
    });
    schedulers.push(scheduler);
    return scheduler;
  }

  async function addSchedule(database: HubDatabase, id: string, nextRunAt: string): Promise<void> {
    await database.db
      .insertInto('schedules')
      .values({
        id,
        name: id,
        cron: '* * * * *',
        timezone: 'UTC',
        command: 'true',
        action_id: null,
        timeout_s: 30,
        targets: '["ast_nothing"]',
        group_id: null,
        run_as: runAs,
        enabled: 1,
        next_run_at: nextRunAt,
        last_run_at: null,
        created_at: nextRunAt,
        only_in_window: 0,
      })
      .execute();
  }

  it('runs each tick once when two processes pass at the same moment', async () => {
    shared = await openSharedDatabase(url);
    const [dbA, dbB] = shared.handles as [HubDatabase, HubDatabase];
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.500Z'));
    const runs: string[] = [];
    const a = schedulerOn(dbA, clock, 'node_a', ['node_a', 'node_b'], runs);
    const b = schedulerOn(dbB, clock, 'node_b', ['node_a', 'node_b'], runs);
    const ids = Array.from({ length: 5 }, (_, i) => `sch_cluster${i}`);
    for (const id of ids) await addSchedule(dbA, id, '2026-11-26T06:00:00.000Z');

    const ticks = 4;
    for (let tick = 0; tick < ticks; tick++) {
      await Promise.all([a.runDue(), b.runDue()]);
      await Promise.all([a.idle(), b.idle()]);
      clock.advance(60_000);
    }

    expect(runs).toHaveLength(ids.length * ticks);
    const rows = await dbB.db.selectFrom('schedule_runs').selectAll().execute();
    expect(rows).toHaveLength(ids.length * ticks);
    expect(rows.every((r) => r.status === 'completed')).toBe(true);
    // One run per schedule and tick, whichever process ran it.
    expect(new Set(rows.map((r) => `${r.schedule_id} ${r.tick_at}`)).size).toBe(ids.length * ticks);
    expect(new Set(rows.map((r) => r.node_id))).toEqual(new Set(runs));
  });

  it('reports as interrupted only the runs of processes that are gone', async () => {
    shared = await openSharedDatabase(url);
    const [dbA, dbB] = shared.handles as [HubDatabase, HubDatabase];
    const clock = new ManualClock(new Date('2026-11-26T06:00:00.000Z'));
    await addSchedule(dbA, 'sch_running', '2026-11-26T07:00:00.000Z');
    const running = (id: string, node: string | null) => ({
      id,
      schedule_id: 'sch_running',
      tick_at: `2026-11-26T05:5${id.length % 10}:00.000Z`,
      status: 'running',
      ticks: 1,
      started_at: '2026-11-26T05:59:00.000Z',
      finished_at: null,
      summary: null,
      results: '[]',
      error: null,
      node_id: node,
    });
    await dbA.db
      .insertInto('schedule_runs')
      .values([running('run_a', 'node_a'), running('run_old', null), running('run_gone1', 'node_gone')])
      .execute();

    // B starts while A lives: A's run is left running; the others are reported.
    const b = schedulerOn(dbB, clock, 'node_b', ['node_a', 'node_b'], []);
    b.start();
    await b.runDue();
    const status = async () =>
      Object.fromEntries(
        (await dbB.db.selectFrom('schedule_runs').select(['id', 'status']).execute()).map((r) => [
          r.id,
          r.status,
        ]),
      );
    expect(await status()).toEqual({
      run_a: 'running',
      run_old: 'interrupted',
      run_gone1: 'interrupted',
    });

    // A dies: the registry tells B, which reports A's run.
    await b.onNodeGone('node_a');
    expect((await status()).run_a).toBe('interrupted');
  });
});
