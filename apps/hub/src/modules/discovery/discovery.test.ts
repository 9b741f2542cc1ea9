import net from 'node:net';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { AgentRequestResult, DiscoveryDefaults, DiscoverySuggestion } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { AgentReplyError } from '../../agents/agent-gateway.js';
import { defaultOutboundPolicy } from '../../platform/outbound/address-policy.js';
import { useOperations } from '../../testing/operations-app.js';

const scan: AgentRequestResult<'discovery.scan'> = {
  applied: { container: true, port_scan: true },
  containers: [
    {
      name: 'grafana',
      image: 'grafana/grafana:11.3.0',
      state: 'running',
      ports: [{ private_port: 3000, public_port: 3000, ip: '0.0.0.0', type: 'tcp' }],
      compose_project: null,
    },
  ],
  listening: [
    { protocol: 'tcp', address: '0.0.0.0', port: 22 },
    { protocol: 'tcp6', address: '::', port: 22 },
    { protocol: 'tcp', address: '127.0.0.1', port: 5432 },
    { protocol: 'tcp', address: '0.0.0.0', port: 3000 },
  ],
};

let defaults: DiscoveryDefaults = { container: true, proxy_api: true, port_scan: true, lan_scan: false };

describe.each(databaseTargets())('discovery ($name)', ({ options }) => {
  const use = useOperations(options, () => ({
    discovery: {
      defaults: () => defaults,
      // The tests probe loopback only, so the egress policy opts in to it here.
      outboundPolicy: () => ({ ...defaultOutboundPolicy, allowLoopback: true }),
      lanScan: { perSecond: 1000, timeoutMs: 300 },
    },
  }));

  async function suggestions(ops: ReturnType<typeof use>['ops'], query = ''): Promise<DiscoverySuggestion[]> {
    const res = await ops.request('GET', `/api/v2/discovery/suggestions?per_page=500${query}`);
    expect(res.status).toBe(200);
    return res.json.data as DiscoverySuggestion[];
  }

  it('asks every online agent per the fleet defaults and suggests what it found, once', async () => {
    const { t, ops } = use();
    defaults = { container: true, proxy_api: true, port_scan: false, lan_scan: false };
    const host = await t.createAsset({ name: 'docker-7' });
    const broken = await t.createAsset({ name: 'broken' });
    ops.gateway.connect(host.id, { handlers: { 'discovery.scan': () => scan } });
    ops.gateway.connect(broken.id, {
      handlers: {
        'discovery.scan': () => {
          throw new AgentReplyError('failed', 'boom');
        },
      },
    });

    const first = await ops.request('POST', '/api/v2/discovery/run', { body: {} });

    expect(first.status).toBe(200);
    expect(first.json.data).toMatchObject({
      agents: { asked: 2, answered: 1, failed: [{ asset_id: broken.id }] },
      found: 3,
      new_suggestions: 3,
      lan: null,
    });
    expect(ops.gateway.callsOf('discovery.scan')[0]?.payload).toEqual({ container: true, port_scan: false });
    const found = await suggestions(ops);
    expect(found.map((s) => [s.kind, s.title, s.status]).sort()).toEqual([
      ['container', 'grafana (grafana/grafana:11.3.0) on docker-7', 'pending'],
      ['port', 'TCP 22 on docker-7', 'pending'],
      ['port', 'TCP 3000 on docker-7', 'pending'],
    ]);
    // Loopback-only listeners (5432 here) are nobody else's service.
    expect(found.find((s) => s.detail.port === 5432)).toBeUndefined();

    const again = await ops.request('POST', '/api/v2/discovery/run', { body: {} });
    expect(again.json.data).toMatchObject({ found: 3, new_suggestions: 0 });
    expect(await suggestions(ops)).toHaveLength(3);
    expect(ops.events.filter((e) => e.type === 'discovery.completed').map((e) => e.data)).toEqual([
      { asset_ids: [], found: 3, new_suggestions: 3, agents_answered: 1 },
      { asset_ids: [], found: 3, new_suggestions: 0, agents_answered: 1 },
    ]);
  });

  it('keeps a dismissed suggestion dismissed when found again; accepting is audited', async () => {
    const { t, ops } = use();
    defaults = { container: true, proxy_api: true, port_scan: true, lan_scan: false };
    const host = await t.createAsset({ name: 'docker-8' });
    ops.gateway.connect(host.id, { handlers: { 'discovery.scan': () => scan } });
    await ops.request('POST', '/api/v2/discovery/run', { body: {} });
    const mine = (await suggestions(ops)).filter((s) => s.asset_id === host.id);
    const container = mine.find((s) => s.kind === 'container');
    const port = mine.find((s) => s.kind === 'port');
    if (!container || !port) throw new Error('expected suggestions');

    const dismissed = await ops.request('POST', `/api/v2/discovery/suggestions/${port.id}/dismiss`);
    const accepted = await ops.request('POST', `/api/v2/discovery/suggestions/${container.id}/accept`, {
      body: {},
    });
    const twice = await ops.request('POST', `/api/v2/discovery/suggestions/${port.id}/accept`, { body: {} });
    await ops.request('POST', '/api/v2/discovery/run', { body: {} });

    expect(dismissed.json.data).toMatchObject({
      status: 'dismissed',
      decided_at: expect.any(String) as unknown,
    });
    expect(accepted.json.data).toMatchObject({ status: 'accepted', created_asset_id: null });
    expect([twice.status, twice.json.error]).toEqual([409, 'conflict']);
    const after = await suggestions(ops, '&status=dismissed');
    expect(after.map((s) => s.id)).toContain(port.id);
    const audit = await t.hub.database.db
      .selectFrom('audit_events')
      .select(['action', 'target_id'])
      .where('action', 'like', 'discovery.%')
      .execute();
    expect(audit).toEqual(
      expect.arrayContaining([
        { action: 'discovery.dismiss', target_id: port.id },
        { action: 'discovery.accept', target_id: container.id },
        { action: 'discovery.run', target_id: null },
      ]),
    );
  });

  it('probes a LAN CIDR only when enabled; an accepted host becomes an asset, never before', async () => {
    const { t, ops } = use();
    const server = net.createServer((socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const port = (server.address() as net.AddressInfo).port;
    try {
      defaults = { container: true, proxy_api: true, port_scan: true, lan_scan: false };
      const off = await ops.request('POST', '/api/v2/discovery/run', {
        body: { lan: { cidr: '127.0.0.1/32', ports: [port] } },
      });
      expect([off.status, off.json.error]).toEqual([409, 'conflict']);
      expect(off.json.message).toContain('services.discovery_default_lan_scan');

      defaults = { ...defaults, lan_scan: true };
      const wide = await ops.request('POST', '/api/v2/discovery/run', {
        body: { lan: { cidr: '10.0.0.0/8' } },
      });
      expect([wide.status, wide.json.error]).toEqual([400, 'validation']);

      const assetsBefore = (await t.request('GET', '/api/v2/assets?per_page=500')).json.meta;
      const run = await ops.request('POST', '/api/v2/discovery/run', {
        body: { lan: { cidr: '127.0.0.1/32', ports: [port] } },
      });
      expect(run.status).toBe(200);
      expect((run.json.data as { lan: unknown }).lan).toEqual({
        cidr: '127.0.0.1/32',
        addresses: 1,
        probes: 1,
        refused: 0,
        hosts_found: 1,
      });
      // Found, suggested, not added.
      expect((await t.request('GET', '/api/v2/assets?per_page=500')).json.meta).toEqual(assetsBefore);
      const host = (await suggestions(ops, '&kind=host')).find((s) => s.detail.address === '127.0.0.1');
      expect(host).toMatchObject({ status: 'pending', title: `127.0.0.1 answers on TCP ${String(port)}` });

      const accepted = await ops.request('POST', `/api/v2/discovery/suggestions/${host?.id ?? ''}/accept`, {
        body: { name: 'lab-printer' },
      });
      const createdId = (accepted.json.data as DiscoverySuggestion).created_asset_id;
      expect(createdId).toEqual(expect.stringMatching(/^ast_/));
      const asset = await t.request('GET', `/api/v2/assets/${createdId ?? ''}`);
      expect(asset.json.data).toMatchObject({
        name: 'lab-printer',
        ip_addresses: ['127.0.0.1'],
        source: 'manual',
      });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('is for unrestricted keys with discovery:write only', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const restricted = await t.createKey({ scopes: ['discovery:write'], allowed_assets: [asset.id] });
    const wrong = await t.createKey({ scopes: ['assets:read'] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });

    const anonymous = await ops.app.inject({ method: 'POST', url: '/api/v2/discovery/run', payload: {} });
    expect(anonymous.statusCode).toBe(401);
    for (const key of [restricted.raw_key, wrong.raw_key, viewer.raw_key]) {
      const res = await ops.request('POST', '/api/v2/discovery/run', { key, body: {} });
      expect(res.status).toBe(403);
    }
    expect(
      (await ops.request('GET', '/api/v2/discovery/suggestions', { key: restricted.raw_key })).status,
    ).toBe(403);
    expect((await ops.request('GET', '/api/v2/discovery/suggestions', { key: viewer.raw_key })).status).toBe(
      200,
    );
    const unknown = await ops.request(
      'POST',
      '/api/v2/discovery/suggestions/dsg_00000000000000000000000000/dismiss',
    );
    expect(unknown.status).toBe(404);
    expect(ops.gateway.callsOf('discovery.scan')).toEqual([]);
  });
});
