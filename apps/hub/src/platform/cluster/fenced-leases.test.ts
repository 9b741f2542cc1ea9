/**
 * Fenced node leases (decision 0053), with two processes' registries and presences on one store and a fake
 * clock: a process that stalled past its lease and was reported gone cannot write presence, schedule claims
 * or session ends afterwards; when it renews it registers under a new epoch and its still-connected agents are
 * online again with their events; a stall shorter than the lease changes nothing. On SQLite always and on the
 * real PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { newId, type Hello } from '@svc/protocol';
import { ManualClock } from '../clock.js';
import { createInProcessEventBus, type HubEvent } from '../event-bus.js';
import { silentLogger } from '../logger.js';
import { assetRow } from '../../testing/asset-row.js';
import {
  openSharedDatabase,
  sharedDatabaseTargets,
  type SharedDatabase,
} from '../../testing/shared-database.js';
import { createPresence, type Presence } from '../../agents/presence.js';
import { createAssetPresenceStore } from '../../modules/assets/asset-presence.service.js';
import { claimTick, finishRun, insertRun } from '../../modules/schedules/schedules.repository.js';
import { endOwnedSession } from '../../modules/sessions/sessions.repository.js';
import { renewClaims } from '../../modules/webhooks/webhooks.repository.js';
import { createDbNodeRegistry, defaultNodeLeaseMs, type DbNodeRegistry } from './db-node-registry.js';

const leaseMs = defaultNodeLeaseMs;
const renewMs = leaseMs / 10;

const hello: Hello = {
  agent_version: '0.1.0',
  protocol: 1,
  hostname: 'host-a',
  platform: 'linux',
  os_release: 'Debian 12',
  arch: 'x64',
  ip_addresses: ['192.168.1.10'],
  mac_addresses: ['11:22:33:44:55:66'],
  capabilities: ['exec'],
  low_power: false,
};

interface Process {
  registry: DbNodeRegistry;
  presence: Presence;
  events: HubEvent[];
  gone: string[];
  regained: number[];
}

describe.each(sharedDatabaseTargets())('fenced node leases on $name', ({ url }) => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  /** Two processes, `a` (the one that stalls) and `b` (the survivor), each with its own database handle. */
  async function twoProcesses() {
    const store: SharedDatabase = await openSharedDatabase(url);
    cleanups.push(() => store.close());
    const clock = new ManualClock(new Date('2026-11-29T12:00:00.000Z'));
    const start = (name: string, index: number): Process => {
      const db = store.handles[index]?.db;
      if (!db) throw new Error('no handle');
      const registry = createDbNodeRegistry({
        db,
        clock,
        nodeId: name,
        logger: silentLogger,
        leaseMs,
        renewMs,
      });
      const events: HubEvent[] = [];
      const bus = createInProcessEventBus({ clock, validate: true });
      bus.subscribe((event) => {
        events.push(event);
      });
      const written = createPresence({
        store: createAssetPresenceStore(db),
        clock,
        events: bus,
        logger: silentLogger,
        nodeId: name,
        lease: registry,
      });
      // The gateway's part: which agents are connected here, what a regained lease writes online again.
      const connected = new Set<string>();
      const presence: Presence = {
        ...written,
        connected(assetId, hello, remoteAddress) {
          connected.add(assetId);
          return written.connected(assetId, hello, remoteAddress);
        },
        disconnected(assetId) {
          connected.delete(assetId);
          return written.disconnected(assetId);
        },
        allDisconnected(assetIds) {
          for (const id of assetIds) connected.delete(id);
          return written.allDisconnected(assetIds);
        },
      };
      const process: Process = { registry, presence, events, gone: [], regained: [] };
      registry.onNodeGone(async (node) => {
        process.gone.push(node);
        await presence.nodeGone(node);
      });
      registry.onLeaseRegained(async (epoch) => {
        process.regained.push(epoch);
        await presence.regained([...connected]);
      });
      return process;
    };
    const a = start('node_a', 0);
    const b = start('node_b', 1);
    await a.registry.start();
    await b.registry.start();
    cleanups.push(async () => {
      await a.registry.close();
      await b.registry.close();
    });
    const db = store.handles[1]?.db;
    if (!db) throw new Error('no handle');
    const agent = async (name: string): Promise<string> => {
      const id = newId('asset');
      await db
        .insertInto('assets')
        .values(assetRow(id, { name, source: 'agent', status: 'offline' }))
        .execute();
      return id;
    };
    const row = (id: string) =>
      db
        .selectFrom('assets')
        .select(['status', 'agent_node', 'last_seen_at'])
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
    return { clock, a, b, db, agent, row };
  }

  /** `a` stalls past its lease: `b` renews on time and reports it gone (marking its agents offline). */
  async function stallPastLease(t: Awaited<ReturnType<typeof twoProcesses>>): Promise<void> {
    for (let waited = 0; waited <= leaseMs; waited += renewMs) {
      t.clock.advance(renewMs);
      await t.b.registry.renewNow();
    }
    expect(t.b.gone).toEqual(['node_a']);
  }

  it('refuses presence writes of a process reported gone; the survivor’s offline stands', async () => {
    const t = await twoProcesses();
    const held = await t.agent('held');
    const leaving = await t.agent('leaving');
    expect(await t.a.presence.connected(held, hello, '10.0.0.1')).toBe(true);
    expect(await t.a.presence.connected(leaving, hello, '10.0.0.2')).toBe(true);
    expect(await t.row(held)).toMatchObject({ status: 'online', agent_node: 'node_a' });

    await stallPastLease(t);
    const afterGone = await t.row(held);
    expect(afterGone.status).toBe('offline');

    // What `a` does on waking, before its renewal: a heartbeat's last-seen, an agent leaving, one arriving.
    t.clock.advance(61_000);
    t.a.presence.seen(held);
    await t.a.presence.flush();
    await t.a.presence.disconnected(leaving);
    const late = await t.agent('late');
    const eventsBefore = t.a.events.length;
    expect(await t.a.presence.connected(late, hello, '10.0.0.3')).toBe(true);
    await t.a.presence.allDisconnected([held]);

    expect(await t.row(held)).toEqual(afterGone);
    expect((await t.row(leaving)).status).toBe('offline');
    expect((await t.row(late)).status).toBe('offline');
    expect(t.a.events.slice(eventsBefore)).toEqual([]);
    expect(t.a.registry.refusedCount()).toBeGreaterThanOrEqual(3);
  });

  it('registers again under a new epoch and writes its still-connected agents online, with events', async () => {
    const t = await twoProcesses();
    const held = await t.agent('held');
    const left = await t.agent('left');
    await t.a.presence.connected(held, hello, '10.0.0.1');
    await t.a.presence.connected(left, hello, '10.0.0.2');
    expect(t.a.registry.epoch()).toBe(1);

    await stallPastLease(t);
    // Gone while `a` was stalled: its offline write is refused (the survivor already wrote offline).
    await t.a.presence.disconnected(left);
    const eventsBefore = t.a.events.length;

    await t.a.registry.renewNow();
    expect(t.a.registry.epoch()).toBe(2);
    expect(t.a.regained).toEqual([2]);
    const epochs = await t.db
      .selectFrom('cluster_nodes')
      .select(['node_id', 'epoch'])
      .orderBy('node_id')
      .execute();
    expect(epochs).toEqual([
      { node_id: 'node_a', epoch: 2 },
      { node_id: 'node_b', epoch: 1 },
    ]);
    expect(await t.row(held)).toMatchObject({ status: 'online', agent_node: 'node_a' });
    expect((await t.row(left)).status).toBe('offline');
    const online = t.a.events.slice(eventsBefore).filter((e) => e.type === 'asset.online');
    expect(online.map((e) => (e.data as { asset_id: string }).asset_id)).toEqual([held]);

    // The survivor sees `a` live again, and what `a` writes now lands.
    await t.b.registry.renewNow();
    expect(t.b.registry.isLive('node_a')).toBe(true);
    await t.a.presence.disconnected(held);
    expect((await t.row(held)).status).toBe('offline');
  });

  it('registers again when its lease ran out though no survivor removed it yet', async () => {
    const t = await twoProcesses();
    const held = await t.agent('held');
    await t.a.presence.connected(held, hello, '10.0.0.1');
    // Both stalled (b does not renew either) past the lease and a heartbeat's resolution: a's row is still
    // there, expired, and a's last-seen write is refused.
    t.clock.advance(61_000);
    t.a.presence.seen(held);
    await t.a.presence.flush();
    expect(t.a.registry.refusedCount()).toBe(1);

    await t.a.registry.renewNow();
    expect(t.a.registry.epoch()).toBe(2);
    expect(t.a.regained).toEqual([2]);
    // b's renewal finds a's lease extended: nothing is reported gone.
    await t.b.registry.renewNow();
    expect(t.b.gone).toEqual([]);
    expect(await t.row(held)).toMatchObject({ status: 'online', agent_node: 'node_a' });
  });

  it('changes nothing after a stall shorter than the lease', async () => {
    const t = await twoProcesses();
    const held = await t.agent('held');
    await t.a.presence.connected(held, hello, '10.0.0.1');
    const before = await t.row(held);

    // `a` stalls for the lease less one renewal interval (and a bit): `b` renews on time throughout.
    const stallMs = leaseMs - renewMs - 1;
    for (let waited = 0; waited + renewMs <= stallMs; waited += renewMs) {
      t.clock.advance(renewMs);
      await t.b.registry.renewNow();
    }
    t.clock.advance(stallMs % renewMs);
    await t.b.registry.renewNow();
    await t.a.registry.renewNow();

    expect(t.b.gone).toEqual([]);
    expect(t.a.regained).toEqual([]);
    expect(t.a.registry.epoch()).toBe(1);
    expect(t.a.registry.refusedCount()).toBe(0);
    expect(await t.row(held)).toEqual(before);
    await t.a.presence.disconnected(held);
    expect((await t.row(held)).status).toBe('offline');
  });

  it('refuses a schedule tick claim, a run’s finish and a session end from a lapsed epoch', async () => {
    const t = await twoProcesses();
    const now = t.clock.now().toISOString();
    const scheduleId = newId('schedule');
    await t.db
      .insertInto('schedules')
      .values({
        id: scheduleId,
        name: 'nightly',
        cron: '0 3 * * *',
        timezone: 'UTC',
        command: 'true',
        action_id: null,
        targets: null,
        group_id: null,
        timeout_s: 60,
        enabled: 1,
        run_as: '{"type":"user","id":"usr_x"}',
        next_run_at: now,
        last_run_at: null,
        created_at: now,
        only_in_window: 0,
      })
      .execute();
    const runId = newId('scheduleRun');
    await insertRun(t.db, {
      id: runId,
      schedule_id: scheduleId,
      tick_at: now,
      status: 'running',
      ticks: 1,
      started_at: now,
      finished_at: null,
      summary: null,
      results: '[]',
      error: null,
      node_id: 'node_a',
    });
    const sessionId = newId('session');
    await t.db
      .insertInto('remote_sessions')
      .values({
        id: sessionId,
        kind: 'terminal',
        asset_id: 'asset_x',
        owner_type: 'session',
        owner_id: 'usr_x',
        state: 'live',
        cols: 80,
        rows: 24,
        created_at: now,
        last_activity_at: now,
        ended_at: null,
        end_reason: null,
        exit_code: null,
        recording_id: null,
        node_id: 'node_a',
      })
      .execute();
    const staleFence = t.a.registry.fence();

    await stallPastLease(t);
    const lapsed = t.a.registry.fence();
    const next = new Date(t.clock.now().getTime() + 86_400_000).toISOString();
    expect(await claimTick(t.db, scheduleId, now, next, true, lapsed)).toBe(false);
    const ended = { status: 'completed', finished_at: now, summary: null, results: '[]', error: null };
    expect(await finishRun(t.db, runId, ended, staleFence)).toBe(false);
    expect(await endOwnedSession(t.db, sessionId, { state: 'ended', end_reason: 'exit' }, lapsed)).toBe(
      false,
    );
    const schedule = await t.db
      .selectFrom('schedules')
      .select('next_run_at')
      .where('id', '=', scheduleId)
      .executeTakeFirstOrThrow();
    expect(schedule.next_run_at).toBe(now);

    // A webhook delivery it claimed keeps its claim's end: the renewal is refused.
    await t.db
      .insertInto('webhook_pending')
      .values({
        id: 'wdp_1',
        webhook_id: 'whk_1',
        event_id: 'evt_1',
        event_type: 'asset.online',
        ts: now,
        body: '{}',
        attempts: 0,
        next_attempt_at: now,
        created_at: now,
        claimed_by: 'node_a',
        claim_expires_at: now,
      })
      .execute();
    expect(await renewClaims(t.db, 'node_a', next, lapsed)).toBe(0);

    // Registered again: the old epoch's fence still refuses; the new one's passes.
    await t.a.registry.renewNow();
    expect(await finishRun(t.db, runId, ended, staleFence)).toBe(false);
    expect(await claimTick(t.db, scheduleId, now, next, true, t.a.registry.fence())).toBe(true);
  });
});
