/**
 * Virtualization routes against the fake Proxmox VE over real TLS (its CA pinned on the connector): cluster
 * status (standalone and cluster), resources per caller, start/stop followed to the task's end, Ceph, the
 * policy switch, allowed_assets, and upstream failures as 502.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type {
  Asset,
  CephStatus,
  Connector,
  VirtClusterStatus,
  VirtResource,
  VirtTaskResult,
} from '@svc/protocol';
import {
  databaseTargets,
  startFakeProxmox,
  startTestHub,
  type FakeProxmox,
  type TestHub,
} from '@svc/testkit';
import { addConnector, connectorAssetId, fakeUpstreamResolver } from '../../testing/connector-fixtures.js';

const token = 'root@pam!hub=7d3f6a2e-1b2c-4d5e-8f90-123456789abc';

describe.each(databaseTargets())('virt routes ($name)', ({ options }) => {
  let t: TestHub;
  let pve: FakeProxmox;
  let connector: Connector;
  let vm: string;
  let ct: string;
  let node: string;

  beforeAll(async () => {
    pve = await startFakeProxmox({
      token,
      cluster: 'lab',
      nodes: [
        { name: 'pve1', online: true, ip: '192.0.2.11' },
        { name: 'pve2', online: true, ip: '192.0.2.12' },
      ],
      guests: [
        { vmid: 100, type: 'qemu', node: 'pve1', name: 'web', status: 'running' },
        { vmid: 101, type: 'lxc', node: 'pve2', name: 'dns', status: 'stopped' },
        { vmid: 9000, type: 'qemu', node: 'pve1', name: 'tmpl', status: 'stopped', template: true },
      ],
      ceph: true,
      lxcVmidAsString: true,
    });
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0, taskPollMs: 20, timeoutMs: 2_000 },
    });
    connector = await addConnector(t, {
      kind: 'virt',
      name: 'lab',
      base_url: pve.server.url('pve.test'),
      credentials: token,
      tls_mode: 'pinned_ca',
      tls_ca: pve.server.ca,
    });
    vm = await connectorAssetId(t, connector.id, 'qemu/100');
    ct = await connectorAssetId(t, connector.id, 'lxc/101');
    node = await connectorAssetId(t, connector.id, 'node/pve1');
  });

  afterAll(async () => {
    await t.close();
    await pve.close();
  });

  beforeEach(() => {
    pve.server.fail(null);
  });

  it('brings nodes, guests and storage in as connector assets, templates left out', async () => {
    const res = await t.request('GET', `/api/v2/assets/${vm}`);
    const asset = res.json.data as Asset;
    expect(asset).toMatchObject({
      name: 'web',
      source: 'connector',
      status: 'online',
      agent: null,
      connector: { connector_id: connector.id, kind: 'vm', external_id: 'qemu/100' },
    });
    expect((await t.request('GET', `/api/v2/assets/${ct}`)).json.data).toMatchObject({ status: 'offline' });
    await expect(connectorAssetId(t, connector.id, 'qemu/9000')).rejects.toThrow();
    await expect(connectorAssetId(t, connector.id, 'storage/pve2/local-zfs')).resolves.toMatch(/^ast_/);
  });

  it('answers cluster status with quorum and nodes', async () => {
    const res = await t.request('GET', '/api/v2/virt/cluster/status');
    expect(res.status, res.text).toBe(200);
    const status = res.json.data as VirtClusterStatus;
    expect(status.cluster).toEqual({ name: 'lab', quorate: true, nodes: 2, version: 7 });
    expect(status.nodes[0]).toEqual({
      name: 'pve1',
      online: true,
      ip: '192.0.2.11',
      local: true,
      nodeid: 1,
      asset_id: node,
    });
  });

  it('lists resources of the four types, coerced (LXC vmid arrives as a string)', async () => {
    const res = await t.request('GET', '/api/v2/virt/cluster/resources?per_page=100');
    expect(res.status, res.text).toBe(200);
    const resources = res.json.data as VirtResource[];
    expect(new Set(resources.map((r) => r.type))).toEqual(new Set(['qemu', 'lxc', 'node', 'storage']));
    const dns = resources.find((r) => r.id === 'lxc/101');
    expect(dns).toMatchObject({ vmid: 101, maxcpu: 1.5, template: false, asset_id: ct, node: 'pve2' });
    const only = await t.request('GET', '/api/v2/virt/cluster/resources?type=qemu');
    expect((only.json.data as VirtResource[]).map((r) => r.id)).toEqual(['qemu/100', 'qemu/9000']);
  });

  it('starts a guest, follows its task to OK, and the asset follows', async () => {
    const res = await t.request('POST', `/api/v2/virt/assets/${ct}/start`);
    expect(res.status, res.text).toBe(200);
    const result = res.json.data as VirtTaskResult;
    expect(result).toMatchObject({ asset_id: ct, action: 'start', exitstatus: 'OK' });
    expect(result.upid).toMatch(/^UPID:pve2:.*:vzstart:101:root@pam!hub:$/);
    expect((await t.request('GET', `/api/v2/assets/${ct}`)).json.data).toMatchObject({ status: 'online' });
    const audit = await t.request('GET', '/api/v2/audit/events?action=virt.start');
    expect(JSON.stringify(audit.json.data)).toContain(ct);
  });

  it('answers 502 with the exit status when the task ends otherwise', async () => {
    pve.failNextTask('command /usr/bin/kvm failed: exit code 1');
    const res = await t.request('POST', `/api/v2/virt/assets/${vm}/stop`);
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ error: 'upstream_error' });
    expect(String(res.json.message)).toContain('exit status: command /usr/bin/kvm failed: exit code 1');
  });

  it('answers 502 with the upstream reason when Proxmox refuses (already running)', async () => {
    const res = await t.request('POST', `/api/v2/virt/assets/${vm}/start`);
    expect(res.status).toBe(502);
    expect(res.json.message).toBe('lab: HTTP 500 VM 100 already running');
  });

  it('refuses start/stop on a node or a non-connector asset', async () => {
    expect((await t.request('POST', `/api/v2/virt/assets/${node}/start`)).status).toBe(409);
    const manual = await t.createAsset();
    expect((await t.request('POST', `/api/v2/virt/assets/${manual.id}/start`)).status).toBe(409);
    expect((await t.request('POST', '/api/v2/virt/assets/ast_00000000000000000000000000/start')).status).toBe(
      404,
    );
  });

  it('agent routes on a connector asset answer 409 asset_offline', async () => {
    const res = await t.request('POST', `/api/v2/assets/${vm}/exec`, { body: { command: 'uptime' } });
    expect(res.status).toBe(409);
    expect(res.json.error).toBe('asset_offline');
  });

  it('reads Ceph health from the raw ceph status', async () => {
    const res = await t.request('GET', '/api/v2/virt/ceph/status');
    expect(res.status, res.text).toBe(200);
    const ceph = res.json.data as CephStatus;
    expect(ceph).toMatchObject({
      health: 'HEALTH_WARN',
      osds: { total: 6, up: 6, in: 5 },
      pgs: { total: 129 },
      monitors: 2,
    });
    expect(ceph.checks).toEqual([
      { name: 'OSD_NEARFULL', severity: 'HEALTH_WARN', summary: '1 nearfull osd(s)' },
    ]);
  });

  it('turns upstream failures into 502 and records health and last error', async () => {
    pve.server.fail('unauthorized');
    const res = await t.request('GET', '/api/v2/virt/cluster/status');
    expect(res.status).toBe(502);
    expect(res.json.message).toBe('lab: HTTP 401 Authentication failed!');
    expect(res.text).not.toContain(token.split('=')[1]);
    const record = (await t.request('GET', `/api/v2/connectors/${connector.id}`)).json.data as Connector;
    expect(record).toMatchObject({ health: 'error', last_error: 'HTTP 401 Authentication failed!' });
    pve.server.fail('malformed');
    expect((await t.request('GET', '/api/v2/virt/cluster/resources')).status).toBe(502);
    pve.server.fail(null);
    expect((await t.request('GET', '/api/v2/virt/cluster/status')).status).toBe(200);
    expect((await t.request('GET', `/api/v2/connectors/${connector.id}`)).json.data).toMatchObject({
      health: 'ok',
      last_error: null,
    });
  });

  it('refuses actions at once when policy.connector_enabled is off', async () => {
    const off = await t.request('PATCH', '/api/settings/runtime', {
      body: { 'policy.connector_enabled': false },
    });
    expect(off.status, off.text).toBe(200);
    const before = pve.server.requests.length;
    const res = await t.request('POST', `/api/v2/virt/assets/${vm}/stop`);
    expect(res.status).toBe(403);
    expect(res.json.message).toContain('policy.connector_enabled');
    expect(pve.server.requests.length).toBe(before);
    expect((await t.request('GET', '/api/v2/virt/cluster/status')).status).toBe(200);
    await t.request('PATCH', '/api/settings/runtime', { body: { 'policy.connector_enabled': null } });
  });

  describe('authorization', () => {
    it('no key 401, wrong scope 403, viewer mutation 403', async () => {
      expect((await t.request('GET', '/api/v2/virt/cluster/status', { key: null })).status).toBe(401);
      const other = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
      for (const [method, url] of [
        ['GET', '/api/v2/virt/cluster/status'],
        ['GET', '/api/v2/virt/cluster/resources'],
        ['GET', '/api/v2/virt/ceph/status'],
        ['POST', `/api/v2/virt/assets/${vm}/start`],
        ['POST', `/api/v2/virt/assets/${vm}/stop`],
      ] as const) {
        expect((await t.request(method, url, { key: other.raw_key })).status, url).toBe(403);
      }
      const reader = await t.createKey({ role: 'operator', scopes: ['connectors:read'] });
      expect(
        (await t.request('POST', `/api/v2/virt/assets/${vm}/stop`, { key: reader.raw_key })).status,
      ).toBe(403);
      const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
      expect((await t.request('GET', '/api/v2/virt/cluster/resources', { key: viewer.raw_key })).status).toBe(
        200,
      );
      const res = await t.request('POST', `/api/v2/virt/assets/${vm}/stop`, { key: viewer.raw_key });
      expect(res.status).toBe(403);
      expect(res.json.error).toBe('read_only_role');
    });

    it('allowed_assets: 404 outside, resources narrowed, cluster-wide reads refused', async () => {
      const limited = await t.createKey({
        role: 'operator',
        scopes: ['connectors:read', 'connectors:write'],
        allowed_assets: [ct],
      });
      const key = limited.raw_key;
      expect((await t.request('POST', `/api/v2/virt/assets/${vm}/stop`, { key })).status).toBe(404);
      const resources = await t.request('GET', '/api/v2/virt/cluster/resources', { key });
      expect((resources.json.data as VirtResource[]).map((r) => r.asset_id)).toEqual([ct]);
      expect(resources.json.meta).toMatchObject({ total: 1 });
      expect((await t.request('GET', '/api/v2/virt/cluster/status', { key })).status).toBe(403);
      expect((await t.request('GET', '/api/v2/virt/ceph/status', { key })).status).toBe(403);
      const stop = await t.request('POST', `/api/v2/virt/assets/${ct}/stop`, { key });
      expect(stop.status, stop.text).toBe(200);
    });
  });
});

describe('virt on a standalone node', () => {
  it('has no cluster entry and reports Ceph as absent through 502', async () => {
    const pve = await startFakeProxmox({ token, cluster: null });
    const t = await startTestHub({
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0 },
    });
    try {
      await addConnector(t, {
        kind: 'virt',
        name: 'single',
        base_url: pve.server.url('pve.test'),
        credentials: token,
        tls_mode: 'fingerprint',
        tls_fingerprint: pve.server.fingerprint,
      });
      const status = (await t.request('GET', '/api/v2/virt/cluster/status')).json.data as VirtClusterStatus;
      expect(status.cluster).toBeNull();
      expect(status.nodes).toMatchObject([{ name: 'pve1', nodeid: 0, local: true }]);
      const ceph = await t.request('GET', '/api/v2/virt/ceph/status');
      expect(ceph.status).toBe(502);
      expect(ceph.json.message).toBe('single: HTTP 500 binary not installed: /usr/bin/ceph-mon');
    } finally {
      await t.close();
      await pve.close();
    }
  });

  it('answers 404 when no virt connector is configured', async () => {
    const t = await startTestHub();
    try {
      expect((await t.request('GET', '/api/v2/virt/cluster/status')).status).toBe(404);
      const resources = await t.request('GET', '/api/v2/virt/cluster/resources');
      expect(resources.status).toBe(200);
      expect(resources.json.data).toEqual([]);
    } finally {
      await t.close();
    }
  });
});
