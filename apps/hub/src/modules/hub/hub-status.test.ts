import { describe, expect, it } from 'vitest';
import type { HubStatus } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { hubVersion } from '../../platform/version.js';

async function status(t: TestHub, key?: string): Promise<HubStatus> {
  const res = await t.request('GET', '/api/v2/hub/status', key === undefined ? {} : { key });
  expect(res.status, res.text).toBe(200);
  return res.json.data as HubStatus;
}

/** Agents set online/offline; until they exist, the test puts an asset in that state directly. */
async function setStatus(t: TestHub, id: string, value: 'online' | 'offline'): Promise<void> {
  await t.hub.database.db.updateTable('assets').set({ status: value }).where('id', '=', id).execute();
}

describe.each(databaseTargets())('GET /hub/status ($name)', ({ name, options }) => {
  const hub = useTestHub(options, 'per-test');

  it('reports health, version, database and start time', async () => {
    const t = hub();
    const started = t.clock.now().toISOString();

    const s = await status(t);

    expect(s).toEqual({
      status: 'ok',
      version: hubVersion,
      started_at: started,
      uptime_seconds: 0,
      database: name,
      assets: { total: 0, online: 0, offline: 0, unknown: 0 },
      agents_connected: 0,
      metrics: { samples_dropped: 0, samples_lost: 0, purges_pending: 0 },
      mcp: { enabled: true, tool_calls_24h: 0 },
      // The embedded cluster of one: this process alone, no bus, no lease.
      cluster: {
        node_id: t.hub.cluster.bus.nodeId,
        nats: 'none',
        nats_reason: null,
        degraded: false,
        processes: [
          {
            node_id: t.hub.cluster.bus.nodeId,
            epoch: 0,
            started_at: null,
            lease_expires_at: null,
            agents: 0,
            this_process: true,
          },
        ],
      },
      time: started,
      // The process's own zone: what the console shows as the hub's time beside the viewer's.
      time_zone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
    expect(hubVersion).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('counts assets by status as they change', async () => {
    const t = hub();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const c = await t.createAsset();
    await t.createAsset();
    expect((await status(t)).assets).toEqual({ total: 4, online: 0, offline: 0, unknown: 4 });

    await setStatus(t, a.id, 'online');
    await setStatus(t, b.id, 'online');
    await setStatus(t, c.id, 'offline');
    expect((await status(t)).assets).toEqual({ total: 4, online: 2, offline: 1, unknown: 1 });

    expect((await t.request('DELETE', `/api/v2/assets/${a.id}`)).status).toBe(200);
    expect((await status(t)).assets).toEqual({ total: 3, online: 1, offline: 1, unknown: 1 });
  });

  it('grows uptime_seconds with the clock', async () => {
    const t = hub();
    t.clock.advance(1_500);
    expect((await status(t)).uptime_seconds).toBe(1);
    t.clock.advance(3_600_000);
    const later = await status(t);
    expect(later.uptime_seconds).toBe(3601);
    expect(later.time).toBe(t.clock.now().toISOString());
    expect(new Date(later.time).getTime() - new Date(later.started_at).getTime()).toBe(3_601_500);
  });

  it('needs hub:read: other scopes get 403, no key 401', async () => {
    const t = hub();
    const reader = await t.createKey({ role: 'viewer', scopes: ['hub:read'] });
    const family = await t.createKey({ role: 'viewer', scopes: ['hub:*'] });
    const other = await t.createKey({ role: 'admin', scopes: ['assets:read', 'groups:*'] });

    expect((await status(t, reader.raw_key)).status).toBe('ok');
    expect((await status(t, family.raw_key)).status).toBe('ok');
    const refused = await t.request('GET', '/api/v2/hub/status', { key: other.raw_key });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');
    expect(refused.text).not.toContain('uptime_seconds');
    const anonymous = await t.request('GET', '/api/v2/hub/status', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error).toBe('unauthorized');
  });

  it('reports degraded, not an error, when the database cannot be read', async () => {
    const t = hub();
    const drop = t.hub.database.db.schema.dropTable('assets');
    await (name === 'postgres' ? drop.cascade() : drop).execute();

    const s = await status(t);

    expect(s.status).toBe('degraded');
    expect(s.assets).toEqual({ total: 0, online: 0, offline: 0, unknown: 0 });
  });
});
