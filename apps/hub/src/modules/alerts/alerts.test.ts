import { afterEach, describe, expect, it } from 'vitest';
import {
  agentChannelPath,
  type Alert,
  type AlertRule,
  type Incident,
  type MetricSample,
} from '@svc/protocol';
import { FakeAgent, databaseTargets, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import type { HubEvent } from '../../platform/event-bus.js';

function record(t: TestHub): HubEvent[] {
  const seen: HubEvent[] = [];
  t.hub.events.subscribe((event) => {
    if (event.type.startsWith('alert.') || event.type.startsWith('incident.')) seen.push(event);
  });
  return seen;
}

async function createRule(t: TestHub, body: Record<string, unknown>, key?: string): Promise<AlertRule> {
  const res = await t.request('POST', '/api/v2/alerts/rules', { body, ...(key ? { key } : {}) });
  if (res.status !== 201) throw new Error(`rule create failed: ${res.status} ${res.text}`);
  return res.json.data as AlertRule;
}

async function alertsOf(t: TestHub, query = '', key?: string): Promise<{ data: Alert[]; total: number }> {
  const res = await t.request('GET', `/api/v2/alerts${query}`, key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return { data: res.json.data as Alert[], total: res.json.meta?.total ?? -1 };
}

async function incidentsOf(t: TestHub, query = '', key?: string): Promise<Incident[]> {
  const res = await t.request('GET', `/api/v2/incidents${query}`, key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return res.json.data as Incident[];
}

/** Samples `minutesAgo` before the hub's clock with the given CPU percent, written to the store. */
async function seedCpu(t: TestHub, assetId: string, points: [minutesAgo: number, cpu: number][]) {
  const now = t.clock.now().getTime();
  const samples: MetricSample[] = points.map(([ago, cpu]) => ({
    ts: new Date(now - ago * 60_000).toISOString(),
    cpu_percent: cpu,
    memory_used_bytes: 1,
    memory_total_bytes: 4,
    disk_used_bytes: 3,
    disk_total_bytes: 4,
    load1: 0,
    net_rx_bytes: 0,
    net_tx_bytes: 0,
  }));
  t.hub.metrics.store.add(assetId, samples);
  await t.hub.metrics.store.flush();
}

const tick = (t: TestHub) => t.hub.services.alertEvaluator.tick();

/** Polls until `done` holds; bounded in rounds, for state that follows agent traffic. */
async function until(done: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (await done()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('condition not reached in time');
}

describe.each(databaseTargets())('alerts and incidents ($name)', ({ options }) => {
  let t: TestHub | null = null;
  afterEach(async () => {
    await t?.close();
    t = null;
  });

  it('an agent gone for the rule duration fires an alert and opens an incident; back online resolves it', async () => {
    t = await startTestHub({ ...options, listen: true });
    const hub = t;
    const [identity] = await provisionAgents(hub.hub, 1, 'alerting');
    if (!identity) throw new Error('agent not provisioned');
    const id = identity.assetId;
    const connect = async () => {
      const agent = new FakeAgent({
        url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
        credential: identity.credential,
      });
      await agent.start();
      return agent;
    };
    const statusOf = async () =>
      ((await hub.request('GET', `/api/v2/assets/${id}`)).json.data as { status: string }).status;
    const agent = await connect();
    await until(async () => (await statusOf()) === 'online');

    const rule = await createRule(hub, {
      name: 'gone',
      kind: 'offline',
      duration_minutes: 1,
      severity: 'critical',
      asset_ids: [id],
    });
    expect(rule).toMatchObject({ kind: 'offline', threshold_percent: null, enabled: true, asset_ids: [id] });
    expect(await tick(hub)).toMatchObject({ checked: 1, fired: 0 });

    const seen = record(hub);
    agent.close();
    await until(async () => (await statusOf()) === 'offline');
    expect(await tick(hub)).toMatchObject({ fired: 0 });
    hub.clock.advance(61_000);
    expect(await tick(hub)).toMatchObject({ fired: 1 });
    expect(await tick(hub)).toMatchObject({ fired: 0 });

    const { data } = await alertsOf(hub);
    expect(data).toHaveLength(1);
    const [alert] = data;
    expect(alert).toMatchObject({
      rule_id: rule.id,
      rule_name: 'gone',
      asset_id: id,
      asset_name: 'alerting-00000',
      kind: 'offline',
      severity: 'critical',
      status: 'firing',
      summary: 'offline for 1 minute',
      value: null,
      resolved_at: null,
    });
    const [incident] = await incidentsOf(hub);
    expect(incident).toMatchObject({
      id: alert?.incident_id,
      asset_id: id,
      status: 'open',
      severity: 'critical',
      alert_count: 1,
      active_alerts: 1,
    });
    expect(seen.map((e) => [e.type, e.data.asset_ids])).toEqual([
      ['alert.fired', [id]],
      ['incident.created', [id]],
    ]);

    seen.length = 0;
    const again = await connect();
    await until(async () => (await statusOf()) === 'online');
    expect(await tick(hub)).toMatchObject({ resolved: 1 });
    expect((await alertsOf(hub, '?status=resolved')).data[0]).toMatchObject({
      id: alert?.id,
      status: 'resolved',
      resolved_at: hub.clock.now().toISOString(),
    });
    // The incident is for people to close: recovery leaves it open with no active alert.
    expect((await incidentsOf(hub))[0]).toMatchObject({ status: 'open', alert_count: 1, active_alerts: 0 });
    const resolved = await hub.request('POST', `/api/v2/incidents/${incident?.id ?? ''}/resolve`);
    expect(resolved.status, resolved.text).toBe(200);
    expect(resolved.json.data).toMatchObject({
      status: 'resolved',
      resolved_at: hub.clock.now().toISOString(),
    });
    expect((await hub.request('POST', `/api/v2/incidents/${incident?.id ?? ''}/resolve`)).status).toBe(409);
    expect(seen.map((e) => e.type)).toEqual(['alert.resolved', 'incident.resolved']);
    again.close();
  });

  it('a metric above its threshold for the duration fires; acknowledge, silence, recovery', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset({ name: 'busy' });
    await createRule(t, {
      name: 'hot cpu',
      kind: 'cpu',
      threshold_percent: 90,
      duration_minutes: 2,
      asset_ids: [a.id],
    });
    await seedCpu(t, a.id, [
      [1, 95],
      [0, 97],
    ]);
    expect(await tick(t)).toMatchObject({ fired: 0 });
    await seedCpu(t, a.id, [
      [3, 50],
      [2.5, 93],
    ]);
    expect(await tick(t)).toMatchObject({ fired: 1 });
    const [alert] = (await alertsOf(t, '?status=active')).data;
    if (!alert) throw new Error('no alert');
    expect(alert).toMatchObject({ kind: 'cpu', severity: 'warning', status: 'firing', value: 97 });
    expect(alert.summary).toBe('cpu 97% above 90% for 2 minutes');

    const ack = await t.request('POST', `/api/v2/alerts/${alert.id}/acknowledge`);
    expect(ack.status, ack.text).toBe(200);
    expect(ack.json.data).toMatchObject({
      status: 'acknowledged',
      acknowledged_at: t.clock.now().toISOString(),
    });
    expect((ack.json.data as Alert).acknowledged_by).toMatch(/^key_/);

    const silenced = await t.request('POST', `/api/v2/alerts/${alert.id}/silence`, {
      body: { duration_minutes: 30 },
    });
    expect(silenced.status, silenced.text).toBe(200);
    const until30 = new Date(t.clock.now().getTime() + 30 * 60_000).toISOString();
    expect(silenced.json.data).toMatchObject({ status: 'silenced', silenced_until: until30 });
    expect((await alertsOf(t, '?status=silenced')).total).toBe(1);
    expect((await alertsOf(t, '?status=acknowledged')).total).toBe(0);
    t.clock.advance(31 * 60_000);
    // The silence ran out; no fresh sample meanwhile changes nothing.
    expect(await tick(t)).toMatchObject({ fired: 0, resolved: 0 });
    expect((await alertsOf(t, '?status=acknowledged')).data.map((x) => x.id)).toEqual([alert.id]);

    await seedCpu(t, a.id, [[0, 20]]);
    expect(await tick(t)).toMatchObject({ resolved: 1 });
    expect((await alertsOf(t, '?status=active')).total).toBe(0);
    expect((await t.request('POST', `/api/v2/alerts/${alert.id}/acknowledge`)).status).toBe(409);

    const audit = await t.request('GET', '/api/v2/audit/events?per_page=50');
    const actions = (
      audit.json.data as { action: string; request_id: string | null; ip: string | null }[]
    ).map((e) => e.action);
    expect(actions).toEqual(
      expect.arrayContaining(['alert_rule.created', 'alert.acknowledged', 'alert.silenced']),
    );
  });

  it('filters by severity and asset, pages, and groups one asset’s alerts into one incident', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset({ name: 'a' });
    const b = await t.createAsset({ name: 'b' });
    await createRule(t, {
      name: 'cpu',
      kind: 'cpu',
      threshold_percent: 50,
      duration_minutes: 0,
      severity: 'info',
    });
    await createRule(t, {
      name: 'disk',
      kind: 'disk',
      threshold_percent: 70,
      duration_minutes: 0,
      severity: 'critical',
    });
    await seedCpu(t, a.id, [[0, 60]]);
    await seedCpu(t, b.id, [[0, 10]]);
    expect(await tick(t)).toMatchObject({ checked: 4, fired: 3 });

    expect((await alertsOf(t, `?asset=${a.id}`)).total).toBe(2);
    expect((await alertsOf(t, '?severity=critical')).total).toBe(2);
    const page = await alertsOf(t, '?per_page=1&page=2');
    expect(page).toMatchObject({ total: 3 });
    expect(page.data).toHaveLength(1);

    const incidents = await incidentsOf(t, `?asset=${a.id}`);
    expect(incidents).toHaveLength(1);
    expect(incidents[0]).toMatchObject({ alert_count: 2, severity: 'critical', status: 'open' });
    expect(await incidentsOf(t, '?status=resolved')).toEqual([]);
  });

  it('a key limited to some assets sees only their alerts, incidents and rules; others are 404', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset({ name: 'mine' });
    const b = await t.createAsset({ name: 'theirs' });
    const everyAsset = await createRule(t, {
      name: 'all',
      kind: 'cpu',
      threshold_percent: 50,
      duration_minutes: 0,
    });
    await seedCpu(t, a.id, [[0, 99]]);
    await seedCpu(t, b.id, [[0, 99]]);
    await tick(t);
    const key = (
      await t.createKey({ role: 'operator', scopes: ['alerts:read', 'alerts:write'], allowed_assets: [a.id] })
    ).raw_key;

    const visible = await alertsOf(t, '', key);
    expect(visible.data.map((x) => x.asset_id)).toEqual([a.id]);
    expect(visible.total).toBe(1);
    expect((await alertsOf(t, `?asset=${b.id}`, key)).total).toBe(0);
    const theirs = (await alertsOf(t, `?asset=${b.id}`)).data[0];
    const theirIncident = (await incidentsOf(t, `?asset=${b.id}`))[0];
    expect((await t.request('POST', `/api/v2/alerts/${theirs?.id ?? ''}/acknowledge`, { key })).status).toBe(
      404,
    );
    expect(
      (
        await t.request('POST', `/api/v2/alerts/${theirs?.id ?? ''}/silence`, {
          key,
          body: { duration_minutes: 5 },
        })
      ).status,
    ).toBe(404);
    expect((await incidentsOf(t, '', key)).map((i) => i.asset_id)).toEqual([a.id]);
    expect(
      (await t.request('POST', `/api/v2/incidents/${theirIncident?.id ?? ''}/resolve`, { key })).status,
    ).toBe(404);

    // Rules: one over every asset is not theirs to see or change; their own must name only their assets.
    const rules = await t.request('GET', '/api/v2/alerts/rules', { key });
    expect(rules.json.data).toEqual([]);
    expect((await t.request('DELETE', `/api/v2/alerts/rules/${everyAsset.id}`, { key })).status).toBe(404);
    const noAssets = await t.request('POST', '/api/v2/alerts/rules', {
      key,
      body: { name: 'x', kind: 'offline' },
    });
    expect(noAssets.status).toBe(400);
    expect(noAssets.json.details).toEqual([expect.objectContaining({ field: 'asset_ids' })]);
    const other = await t.request('POST', '/api/v2/alerts/rules', {
      key,
      body: { name: 'x', kind: 'offline', asset_ids: [b.id] },
    });
    expect(other.status).toBe(400);
    expect(other.text).not.toContain('theirs');
    const own = await createRule(t, { name: 'mine', kind: 'offline', asset_ids: [a.id] }, key);
    expect(
      ((await t.request('GET', '/api/v2/alerts/rules', { key })).json.data as AlertRule[]).map((r) => r.id),
    ).toEqual([own.id]);
  });

  it('refuses bad rules and silences naming the field, and deleting a rule resolves its alerts', async () => {
    t = await startTestHub(options);
    const a = await t.createAsset();
    const bad = async (body: Record<string, unknown>, field: string) => {
      const res = await t?.request('POST', '/api/v2/alerts/rules', { body });
      expect(res?.status, JSON.stringify(body)).toBe(400);
      expect(JSON.stringify(res?.json.details), JSON.stringify(body)).toContain(field);
    };
    await bad({ name: 'x', kind: 'cpu' }, 'threshold_percent');
    await bad({ name: 'x', kind: 'cpu', threshold_percent: 150 }, 'threshold_percent');
    await bad({ name: 'x', kind: 'cpu', threshold_percent: -1 }, 'threshold_percent');
    await bad({ name: 'x', kind: 'offline', threshold_percent: 50 }, 'threshold_percent');
    await bad({ name: 'x', kind: 'load' }, 'kind');
    await bad({ name: 'x', kind: 'offline', duration_minutes: 100_000 }, 'duration_minutes');
    await bad({ name: 'x', kind: 'offline', asset_ids: ['ast_nope'] }, 'asset_ids');
    await bad({ name: 'x', kind: 'offline', severity: 'fatal' }, 'severity');
    await bad({ name: 'x', kind: 'service' }, 'service');
    await bad({ name: 'x', kind: 'service', service: null }, 'service');
    await bad({ name: 'x', kind: 'service', service: '-H' }, 'service');
    await bad({ name: 'x', kind: 'service', service: 'a b' }, 'service');
    await bad({ name: 'x', kind: 'service', service: '..' }, 'service');
    await bad({ name: 'x', kind: 'service', service: 'nginx', threshold_percent: 5 }, 'threshold_percent');
    await bad({ name: 'x', kind: 'offline', service: 'nginx' }, 'service');
    await bad({ name: 'x', kind: 'cpu', threshold_percent: 5, service: 'nginx' }, 'service');

    const rule = await createRule(t, {
      name: 'cpu',
      kind: 'cpu',
      threshold_percent: 10,
      duration_minutes: 0,
    });
    const serviceOnCpu = await t.request('PATCH', `/api/v2/alerts/rules/${rule.id}`, {
      body: { service: 'nginx' },
    });
    expect(serviceOnCpu.status).toBe(400);
    expect(serviceOnCpu.json.details).toEqual([expect.objectContaining({ field: 'service' })]);
    const updated = await t.request('PATCH', `/api/v2/alerts/rules/${rule.id}`, {
      body: { threshold_percent: 20, severity: 'critical', enabled: false },
    });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.json.data).toMatchObject({ threshold_percent: 20, severity: 'critical', enabled: false });
    await seedCpu(t, a.id, [[0, 50]]);
    expect(await tick(t)).toMatchObject({ checked: 0 });
    await t.request('PATCH', `/api/v2/alerts/rules/${rule.id}`, { body: { enabled: true } });
    expect(await tick(t)).toMatchObject({ fired: 1 });
    const [alert] = (await alertsOf(t)).data;

    const silence = async (body: unknown) =>
      t?.request('POST', `/api/v2/alerts/${alert?.id ?? ''}/silence`, { body });
    const past = await silence({ until: new Date(t.clock.now().getTime() - 1000).toISOString() });
    expect(past?.status).toBe(400);
    expect(past?.json.details).toEqual([expect.objectContaining({ field: 'until' })]);
    expect((await silence({ until: '2099-01-01T00:00:00Z' }))?.status).toBe(400);
    expect((await silence({ until: 'tomorrow' }))?.status).toBe(400);
    expect((await silence({}))?.status).toBe(400);
    expect((await silence({ duration_minutes: 0 }))?.status).toBe(400);
    expect((await t.request('POST', '/api/v2/alerts/alr_nope/acknowledge')).status).toBe(404);

    const removed = await t.request('DELETE', `/api/v2/alerts/rules/${rule.id}`);
    expect(removed.status).toBe(200);
    expect((await alertsOf(t, '?status=resolved')).total).toBe(1);
    expect((await t.request('GET', '/api/v2/alerts/rules')).json.data).toEqual([]);
  });
  it('a service not active for the duration fires, active again resolves; a stop through the hub is judged at once', async () => {
    t = await startTestHub({ ...options, listen: true });
    const hub = t;
    const [identity] = await provisionAgents(hub.hub, 1, 'services');
    if (!identity) throw new Error('agent not provisioned');
    const id = identity.assetId;
    let nginx = 'active';
    let asked = 0;
    const unit = (name: string, activeState: string) => ({
      name,
      description: name,
      load_state: 'loaded',
      active_state: activeState,
      sub_state: activeState === 'active' ? 'running' : 'dead',
      enabled: true,
    });
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: {
        'services.list': () => {
          asked++;
          return {
            manager: 'systemd' as const,
            services: [unit('nginx.service', nginx), unit('cron.service', 'failed')],
          };
        },
        'services.action': ({ name, action }) => {
          nginx = action === 'stop' ? 'inactive' : 'active';
          return { name, action, active_state: nginx };
        },
      },
    });
    await agent.start();
    const statusOf = async () =>
      ((await hub.request('GET', `/api/v2/assets/${id}`)).json.data as { status: string }).status;
    await until(async () => (await statusOf()) === 'online');

    const rule = await createRule(hub, {
      name: 'web down',
      kind: 'service',
      service: 'nginx',
      duration_minutes: 2,
      asset_ids: [id],
    });
    expect(rule).toMatchObject({ kind: 'service', service: 'nginx', threshold_percent: null });
    // A unit the agent does not list is not known: never fires.
    await createRule(hub, { name: 'ghost', kind: 'service', service: 'ghost.service', duration_minutes: 0 });
    expect(await tick(hub)).toMatchObject({ checked: 2, fired: 0 });
    expect(asked).toBe(1); // one question per asset and pass, whatever the number of rules

    nginx = 'failed';
    expect(await tick(hub)).toMatchObject({ fired: 0 }); // pending: first seen down
    hub.clock.advance(60_000);
    expect(await tick(hub)).toMatchObject({ fired: 0 });
    hub.clock.advance(60_000);
    expect(await tick(hub)).toMatchObject({ fired: 1 });
    expect((await alertsOf(hub)).data[0]).toMatchObject({
      rule_id: rule.id,
      kind: 'service',
      status: 'firing',
      summary: 'service nginx failed for 2 minutes',
      value: null,
    });
    nginx = 'active';
    expect(await tick(hub)).toMatchObject({ resolved: 1 });

    // A stop through the hub publishes service.stopped: with a 0-minute rule the alert fires without a tick.
    const patched = await hub.request('PATCH', `/api/v2/alerts/rules/${rule.id}`, {
      body: { duration_minutes: 0 },
    });
    expect(patched.status, patched.text).toBe(200);
    const stopped = await hub.request('POST', `/api/v2/assets/${id}/services/nginx.service/stop`);
    expect(stopped.status, stopped.text).toBe(200);
    await until(async () => (await alertsOf(hub, '?status=active')).total === 1);
    expect((await alertsOf(hub, '?status=active')).data[0]).toMatchObject({
      rule_id: rule.id,
      summary: 'service nginx inactive',
    });

    // An offline asset is the offline rule's business: not asked, the open alert neither fires again nor resolves.
    agent.close();
    await until(async () => (await statusOf()) === 'offline');
    const before = asked;
    expect(await tick(hub)).toMatchObject({ fired: 0, resolved: 0 });
    expect(asked).toBe(before);
    expect((await alertsOf(hub, '?status=active')).total).toBe(1);
  });
});
