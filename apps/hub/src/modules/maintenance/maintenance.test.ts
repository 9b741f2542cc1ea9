import { afterEach, describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  type Alert,
  type Incident,
  type MaintenanceActiveAsset,
  type MaintenanceWindow,
} from '@svc/protocol';
import { FakeAgent, databaseTargets, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { createInProcessEventBus, type HubEvent } from '../../platform/event-bus.js';
import { silentLogger } from '../../platform/logger.js';
import { createMaintenanceAnnouncer } from './maintenance-announcer.service.js';
import { metricSample } from '../../testing/metric-sample.js';

const minute = 60_000;

function iso(t: TestHub, minutesFromNow: number): string {
  return new Date(t.clock.now().getTime() + minutesFromNow * minute).toISOString();
}

async function createWindow(
  t: TestHub,
  body: Record<string, unknown>,
  key?: string,
): Promise<MaintenanceWindow> {
  const res = await t.request('POST', '/api/v2/maintenance/windows', { body, ...(key ? { key } : {}) });
  if (res.status !== 201) throw new Error(`window create failed: ${res.status} ${res.text}`);
  return res.json.data as MaintenanceWindow;
}

function recordEvents(t: TestHub, prefixes: string[]): HubEvent[] {
  const seen: HubEvent[] = [];
  t.hub.events.subscribe((event) => {
    if (prefixes.some((p) => event.type.startsWith(p))) seen.push(event);
  });
  return seen;
}

/** The span a maintenance event names. */
function occurrenceOf(event: HubEvent): { starts_at?: string; ends_at?: string } {
  return event.data as { starts_at?: string; ends_at?: string };
}

/** Polls until `done` holds; bounded in rounds, for state that follows agent traffic. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached in time');
}

describe.each(databaseTargets())('maintenance windows ($name)', ({ options }) => {
  let t: TestHub | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('creates one-off and recurring windows, shows current and next occurrences, edits and removes', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset({ name: 'db-1' });
    const oneOff = await createWindow(t, {
      name: 'disk swap',
      reason: 'replacing the RAID disks',
      asset_ids: [a.id],
      starts_at: iso(t, 10),
      ends_at: iso(t, 70),
    });
    expect(oneOff).toMatchObject({
      kind: 'one_off',
      asset_ids: [a.id],
      group_ids: [],
      current: null,
      cron: null,
      timezone: 'UTC',
      next_occurrences: [{ starts_at: iso(t, 10), ends_at: iso(t, 70) }],
    });
    expect(oneOff.id).toMatch(/^mnt_/);

    const recurring = await createWindow(t, {
      name: 'patch night',
      reason: 'weekly patches',
      asset_ids: [a.id],
      cron: '0 2 * * 0',
      duration_minutes: 120,
      timezone: 'Europe/Berlin',
    });
    expect(recurring).toMatchObject({ kind: 'recurring', duration_minutes: 120, starts_at: null });
    expect(recurring.next_occurrences).toHaveLength(5);

    // Nothing holds now; ten minutes on, the one-off does, and the asset reads as in maintenance.
    expect((await t.request('GET', '/api/v2/maintenance/active')).json.data).toEqual([]);
    t.clock.advance(10 * minute);
    const active = (await t.request('GET', '/api/v2/maintenance/active')).json
      .data as MaintenanceActiveAsset[];
    expect(active).toEqual([{ asset_id: a.id, window_ids: [oneOff.id], until: oneOff.ends_at }]);
    const holding = await t.request('GET', `/api/v2/maintenance/windows?asset=${a.id}&active=true`);
    expect((holding.json.data as MaintenanceWindow[]).map((w) => w.id)).toEqual([oneOff.id]);
    expect(holding.json.meta?.total).toBe(1);

    const edited = await t.request('PATCH', `/api/v2/maintenance/windows/${oneOff.id}`, {
      body: { reason: 'replacing two disks', ends_at: iso(t, 30) },
    });
    expect(edited.status, edited.text).toBe(200);
    expect(edited.json.data).toMatchObject({ reason: 'replacing two disks', ends_at: iso(t, 30) });
    expect(edited.json.data).toMatchObject({ current: { ends_at: iso(t, 30) } });

    expect((await t.request('DELETE', `/api/v2/maintenance/windows/${oneOff.id}`)).status).toBe(200);
    expect((await t.request('GET', `/api/v2/maintenance/windows/${oneOff.id}`)).status).toBe(404);

    const audit = await t.request('GET', '/api/v2/audit/events?per_page=50');
    const actions = (audit.json.data as { action: string; target_id: string | null }[])
      .filter((e) => e.action.startsWith('maintenance.'))
      .map((e) => [e.action, e.target_id]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['maintenance.created', oneOff.id],
        ['maintenance.created', recurring.id],
        ['maintenance.updated', oneOff.id],
        ['maintenance.deleted', oneOff.id],
      ]),
    );
  });

  it('refuses garbage with a 400 naming the field', async () => {
    t = await startTestHub(options);
    const hub = t;
    const a = await hub.createAsset();
    const base = { name: 'w', reason: 'r', asset_ids: [a.id] };
    const recurring = { ...base, cron: '0 2 * * *', duration_minutes: 60 };
    const bad = async (body: unknown, field: string) => {
      const res = await hub.request('POST', '/api/v2/maintenance/windows', { body });
      expect(res.status, res.text).toBe(400);
      expect(res.text).toContain(field);
    };
    await bad({ ...recurring, cron: 'every night' }, 'cron');
    await bad({ ...recurring, cron: '0 25 * * *' }, 'cron');
    await bad({ ...recurring, timezone: 'Mars/Olympus' }, 'timezone');
    await bad({ ...recurring, duration_minutes: 0 }, 'duration_minutes');
    await bad({ ...recurring, duration_minutes: 7 * 24 * 60 + 1 }, 'duration_minutes');
    await bad({ ...recurring, cron: '0 * * * *', duration_minutes: 61 }, 'duration_minutes');
    await bad({ ...recurring, reason: 'x'.repeat(501) }, 'reason');
    await bad({ ...recurring, reason: '' }, 'reason');
    await bad({ ...recurring, starts_at: iso(hub, 1), ends_at: iso(hub, 2) }, 'cron');
    await bad({ ...base, starts_at: iso(hub, 5), ends_at: iso(hub, 1) }, 'ends_at');
    await bad({ ...base, starts_at: iso(hub, -60), ends_at: iso(hub, -1) }, 'ends_at');
    await bad({ ...base, starts_at: 'tomorrow', ends_at: iso(hub, 1) }, 'starts_at');
    await bad({ ...base }, 'starts_at');
    await bad({ ...recurring, asset_ids: [] }, 'asset_ids');
    await bad({ ...recurring, asset_ids: ['ast_00000000000000000000000000'] }, 'asset_ids');
    await bad({ ...recurring, asset_ids: ['nope'] }, 'asset_ids');
    await bad({ ...recurring, group_ids: ['nope'] }, 'group_ids');
    await bad({ ...recurring, color: 'red' }, 'color');
    const patched = await hub.request('PATCH', '/api/v2/maintenance/windows/mnt_x', { body: {} });
    expect(patched.status).toBe(400);
  });

  it('viewers read, refused writes; a key limited to some assets acts only on windows wholly its own', async () => {
    t = await startTestHub(options);
    const mine = await t.createAsset({ name: 'mine' });
    const theirs = await t.createAsset({ name: 'theirs' });
    const mixed = await t.request('POST', '/api/v2/groups', {
      body: { name: 'mixed', asset_ids: [mine.id, theirs.id] },
    });
    const mixedGroup = (mixed.json.data as { id: string }).id;
    const onTheirs = await createWindow(t, {
      name: 'theirs',
      reason: 'theirs only',
      asset_ids: [theirs.id],
      cron: '0 3 * * *',
      duration_minutes: 30,
    });
    const onGroup = await createWindow(t, {
      name: 'group',
      reason: 'the whole group',
      group_ids: [mixedGroup],
      cron: '0 4 * * *',
      duration_minutes: 30,
    });
    const body = {
      name: 'mine',
      reason: 'ok',
      asset_ids: [mine.id],
      cron: '0 5 * * *',
      duration_minutes: 30,
    };

    const viewer = await t.createKey({ role: 'viewer' });
    expect((await t.request('GET', '/api/v2/maintenance/windows', { key: viewer.raw_key })).status).toBe(200);
    const refused = await t.request('POST', '/api/v2/maintenance/windows', { key: viewer.raw_key, body });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('read_only_role');

    const unscoped = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    expect((await t.request('GET', '/api/v2/maintenance/windows', { key: unscoped.raw_key })).status).toBe(
      403,
    );

    const limited = await t.createKey({
      role: 'operator',
      scopes: ['maintenance:read', 'maintenance:write'],
      allowed_assets: [mine.id],
    });
    const key = limited.raw_key;
    const other = await t.request('POST', '/api/v2/maintenance/windows', {
      key,
      body: { ...body, asset_ids: [theirs.id] },
    });
    expect(other.status).toBe(400);
    expect(other.text).not.toContain('theirs');
    const group = await t.request('POST', '/api/v2/maintenance/windows', {
      key,
      body: { ...body, asset_ids: [], group_ids: [mixedGroup] },
    });
    expect(group.status).toBe(403);
    const own = await t.request('POST', '/api/v2/maintenance/windows', { key, body });
    expect(own.status, own.text).toBe(201);

    // It sees its own window and the group's (one of its assets is in it), listing only its own assets.
    const listed = (await t.request('GET', '/api/v2/maintenance/windows', { key })).json
      .data as MaintenanceWindow[];
    expect(listed.map((w) => w.name).sort()).toEqual(['group', 'mine']);
    expect((await t.request('GET', `/api/v2/maintenance/windows/${onTheirs.id}`, { key })).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/maintenance/windows/${onTheirs.id}`, { key })).status).toBe(
      404,
    );
    // The group's window holds an asset outside its allowed ones: not its to change.
    const patch = await t.request('PATCH', `/api/v2/maintenance/windows/${onGroup.id}`, {
      key,
      body: { reason: 'mine now' },
    });
    expect(patch.status).toBe(403);
    expect((await t.request('DELETE', `/api/v2/maintenance/windows/${onGroup.id}`, { key })).status).toBe(
      403,
    );
    // Its view of what is active leaves the other asset out.
    t.clock.set(new Date(onTheirs.next_occurrences[0]?.starts_at ?? ''));
    const active = await t.request('GET', '/api/v2/maintenance/active', { key });
    expect(active.json.data).toEqual([]);
  });

  it('publishes maintenance.started and .ended once per occurrence, with its assets, also when removed early', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset();
    const b = await t.createAsset();
    const group = await t.request('POST', '/api/v2/groups', { body: { name: 'g', asset_ids: [b.id] } });
    const seen = recordEvents(t, ['maintenance.']);
    const window = await createWindow(t, {
      name: 'nightly',
      reason: 'backups',
      asset_ids: [a.id],
      group_ids: [(group.json.data as { id: string }).id],
      starts_at: iso(t, 5),
      ends_at: iso(t, 15),
    });
    const announcer = t.hub.services.maintenanceAnnouncer;
    await announcer.runDue();
    expect(seen).toEqual([]);
    t.clock.advance(5 * minute);
    await Promise.all([announcer.runDue(), announcer.runDue()]);
    await announcer.runDue();
    t.clock.advance(10 * minute);
    await announcer.runDue();
    await announcer.runDue();
    expect(seen.map((e) => [e.type, e.data])).toEqual([
      [
        'maintenance.started',
        {
          asset_ids: [a.id, b.id].sort(),
          window_id: window.id,
          name: 'nightly',
          reason: 'backups',
          starts_at: window.starts_at,
          ends_at: window.ends_at,
        },
      ],
      ['maintenance.ended', expect.objectContaining({ window_id: window.id, ends_at: window.ends_at })],
    ]);

    // Removed while it holds: it ends now.
    seen.length = 0;
    const early = await createWindow(t, {
      name: 'early',
      reason: 'r',
      asset_ids: [a.id],
      starts_at: iso(t, 0),
      ends_at: iso(t, 60),
    });
    await announcer.runDue();
    t.clock.advance(minute);
    await t.request('DELETE', `/api/v2/maintenance/windows/${early.id}`);
    await announcer.runDue();
    expect(seen.map((e) => [e.type, occurrenceOf(e).ends_at])).toEqual([
      ['maintenance.started', early.ends_at],
      ['maintenance.ended', t.clock.now().toISOString()],
    ]);
  });

  it('announces an occurrence once when two processes judge the same windows', async () => {
    t = await startTestHub(options);
    const hub = t;
    const a = await hub.createAsset();
    const seen = recordEvents(hub, ['maintenance.']);
    // A second process: its own bus and announcer on the same database.
    const otherBus = createInProcessEventBus({ clock: hub.clock });
    const otherSeen: HubEvent[] = [];
    otherBus.subscribe((e) => otherSeen.push(e));
    const other = createMaintenanceAnnouncer({
      db: hub.hub.database.db,
      clock: hub.clock,
      events: otherBus,
      logger: silentLogger,
      maintenance: hub.hub.services.maintenance,
    });
    const both = () => Promise.all([hub.hub.services.maintenanceAnnouncer.runDue(), other.runDue()]);
    const window = await createWindow(hub, {
      name: 'w',
      reason: 'r',
      asset_ids: [a.id],
      cron: '*/10 * * * *',
      duration_minutes: 5,
    });
    await both();
    hub.clock.set(new Date(window.next_occurrences[0]?.starts_at ?? ''));
    await both();
    await both();
    hub.clock.advance(5 * minute);
    await both();
    await both();
    // The hub's clock starts on a tick (12:00), so that occurrence began at the create; then 12:10's.
    const announced = [...seen, ...otherSeen].map((e) => `${e.type} ${occurrenceOf(e).starts_at}`).sort();
    expect(announced).toEqual([
      'maintenance.ended 2026-11-23T12:00:00.000Z',
      'maintenance.ended 2026-11-23T12:10:00.000Z',
      'maintenance.started 2026-11-23T12:00:00.000Z',
      'maintenance.started 2026-11-23T12:10:00.000Z',
    ]);
    // Four in all across both processes: none announced by both.
    expect(otherSeen.length + seen.length).toBe(4);
  });

  it('records an alert raised inside a window as suppressed, not notified; it fires when the window ends', async () => {
    t = await startTestHub({ ...options, listen: true });
    const hub = t;
    const [identity] = await provisionAgents(hub.hub, 1, 'maint');
    if (!identity) throw new Error('agent not provisioned');
    const id = identity.assetId;
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
    });
    await agent.start();
    /** The agent reports a CPU percent now; waits until the hub has stored it. */
    const reportCpu = async (cpu: number) => {
      const ts = hub.clock.now().toISOString();
      agent.metrics([{ ...metricSample(hub.clock.now().getTime()), cpu_percent: cpu }]);
      await until(async () => {
        await hub.hub.metrics.store.flush();
        const rows = await hub.hub.database.db
          .selectFrom('metric_samples')
          .select('ts')
          .where('asset_id', '=', id)
          .where('ts', '=', ts)
          .execute();
        return rows.length > 0;
      });
    };
    const window = await createWindow(hub, {
      name: 'upgrade',
      reason: 'kernel upgrade',
      asset_ids: [id],
      starts_at: iso(hub, 0),
      ends_at: iso(hub, 30),
    });
    const rule = await hub.request('POST', '/api/v2/alerts/rules', {
      body: { name: 'hot', kind: 'cpu', threshold_percent: 90, duration_minutes: 0, asset_ids: [id] },
    });
    expect(rule.status, rule.text).toBe(201);
    const seen = recordEvents(hub, ['alert.', 'incident.']);

    await reportCpu(97);
    await hub.hub.services.alertEvaluator.tick();
    const alerts = async () =>
      (await hub.request('GET', '/api/v2/alerts?status=active')).json.data as Alert[];
    const [suppressed] = await alerts();
    expect(suppressed).toMatchObject({ status: 'suppressed', suppressed_by: window.id, incident_id: null });
    expect(seen).toEqual([]);
    expect(((await hub.request('GET', '/api/v2/incidents')).json.data as Incident[]).length).toBe(0);
    const ack = await hub.request('POST', `/api/v2/alerts/${suppressed?.id ?? ''}/acknowledge`);
    expect(ack.status).toBe(409);
    const filtered = await hub.request('GET', '/api/v2/alerts?status=suppressed');
    expect((filtered.json.data as Alert[]).map((x) => x.id)).toEqual([suppressed?.id]);

    // Still hot inside the window: nothing more.
    hub.clock.advance(10 * minute);
    await reportCpu(98);
    await hub.hub.services.alertEvaluator.tick();
    expect(seen).toEqual([]);

    // The window ends with the condition still holding: it fires then, once.
    hub.clock.advance(21 * minute);
    await reportCpu(99);
    expect(await hub.hub.services.alertEvaluator.tick()).toMatchObject({ fired: 1 });
    expect(await hub.hub.services.alertEvaluator.tick()).toMatchObject({ fired: 0 });
    const [fired] = await alerts();
    expect(fired).toMatchObject({ id: suppressed?.id, status: 'firing', suppressed_by: window.id });
    expect(fired?.incident_id).not.toBeNull();
    expect(seen.map((e) => e.type)).toEqual(['alert.fired', 'incident.created']);
    agent.close();
  });

  it('quietly resolves a suppressed alert whose condition clears inside the window', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset();
    await createWindow(t, {
      name: 'w',
      reason: 'r',
      asset_ids: [a.id],
      starts_at: iso(t, 0),
      ends_at: iso(t, 30),
    });
    await t.request('POST', '/api/v2/alerts/rules', {
      body: { name: 'hot', kind: 'cpu', threshold_percent: 90, duration_minutes: 0, asset_ids: [a.id] },
    });
    const seen = recordEvents(t, ['alert.', 'incident.']);
    const cpu = async (value: number) => {
      if (!t) return;
      t.hub.metrics.store.add(a.id, [{ ...metricSample(t.clock.now().getTime()), cpu_percent: value }]);
      await t.hub.metrics.store.flush();
    };
    await cpu(95);
    await t.hub.services.alertEvaluator.tick();
    t.clock.advance(minute);
    await cpu(10);
    expect(await t.hub.services.alertEvaluator.tick()).toMatchObject({ resolved: 1 });
    t.clock.advance(40 * minute);
    await cpu(10);
    expect(await t.hub.services.alertEvaluator.tick()).toMatchObject({ fired: 0 });
    expect(seen).toEqual([]);
    const all = (await t.request('GET', '/api/v2/alerts')).json.data as Alert[];
    expect(all.map((x) => x.status)).toEqual(['resolved']);
  });
});
