/**
 * The dependency graph over a hub with the fake Proxmox VE and Backup Server connected: hypervisor → guests,
 * node → storage, backup server → the guests and hosts it backs up, declared links, and filtering per caller.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { DependencyGraph, DependencyLink } from '@svc/protocol';
import {
  startFakeBackupServer,
  startFakeProxmox,
  databaseTargets,
  startTestHub,
  type FakeBackupServer,
  type FakeProxmox,
  type TestHub,
} from '@svc/testkit';
import { addConnector, connectorAssetId, fakeUpstreamResolver } from '../../testing/connector-fixtures.js';

const pveToken = 'root@pam!hub=12345678-1234-4234-8234-123456789012';
const pbsToken = 'root@pam!hub:12345678-1234-4234-8234-123456789012';

describe.each(databaseTargets())('dependencies ($name)', ({ options }) => {
  let t: TestHub;
  let pve: FakeProxmox;
  let pbs: FakeBackupServer;
  const ids = { node: '', vm: '', ct: '', local: '', pbs: '', nas: '' };

  const edgesOf = (graph: DependencyGraph, type: string) =>
    graph.edges
      .filter((e) => e.type === type)
      .map((e) => `${e.from}>${e.to}`)
      .sort();

  beforeAll(async () => {
    pve = await startFakeProxmox({ token: pveToken });
    pbs = await startFakeBackupServer({ token: pbsToken });
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0 },
    });
    const virt = await addConnector(t, {
      kind: 'virt',
      name: 'pve',
      base_url: pve.server.url('pve.test'),
      credentials: pveToken,
      tls_mode: 'pinned_ca',
      tls_ca: pve.server.ca,
    });
    const backup = await addConnector(t, {
      kind: 'backup',
      name: 'pbs',
      base_url: pbs.server.url('pbs.test'),
      credentials: pbsToken,
      tls_mode: 'pinned_ca',
      tls_ca: pbs.server.ca,
    });
    ids.node = await connectorAssetId(t, virt.id, 'node/pve1');
    ids.vm = await connectorAssetId(t, virt.id, 'qemu/100');
    ids.ct = await connectorAssetId(t, virt.id, 'lxc/101');
    ids.local = await connectorAssetId(t, virt.id, 'storage/pve1/local');
    ids.pbs = await connectorAssetId(t, backup.id, 'server');
    ids.nas = (await t.createAsset({ name: 'nas' })).id;
  });

  afterAll(async () => {
    await t.close();
    await pve.close();
    await pbs.close();
  });

  it('derives hosting, storage and backup edges', async () => {
    const res = await t.request('GET', '/api/v2/dependencies');
    expect(res.status, res.text).toBe(200);
    const graph = res.json.data as DependencyGraph;
    expect(graph.nodes.find((n) => n.id === ids.vm)).toEqual({
      id: ids.vm,
      name: 'web',
      kind: 'vm',
      source: 'connector',
      status: 'online',
    });
    expect(graph.nodes.find((n) => n.id === ids.nas)?.kind).toBe('host');
    expect(edgesOf(graph, 'hosts')).toEqual([`${ids.node}>${ids.ct}`, `${ids.node}>${ids.vm}`].sort());
    expect(edgesOf(graph, 'stores')).toContain(`${ids.node}>${ids.local}`);
    expect(edgesOf(graph, 'backs_up')).toEqual(
      [`${ids.pbs}>${ids.ct}`, `${ids.pbs}>${ids.nas}`, `${ids.pbs}>${ids.vm}`].sort(),
    );
  });

  it('adds and removes declared links, refusing self-links, unknown assets and duplicates', async () => {
    const created = await t.request('POST', '/api/v2/dependencies/links', {
      body: { from: ids.vm, to: ids.nas, label: 'NFS mount' },
    });
    expect(created.status, created.text).toBe(201);
    const link = created.json.data as DependencyLink;
    const graph = (await t.request('GET', '/api/v2/dependencies')).json.data as DependencyGraph;
    expect(graph.edges).toContainEqual({
      from: ids.vm,
      to: ids.nas,
      type: 'declared',
      link_id: link.id,
      label: 'NFS mount',
    });
    expect(
      (await t.request('POST', '/api/v2/dependencies/links', { body: { from: ids.vm, to: ids.nas } })).status,
    ).toBe(409);
    expect(
      (await t.request('POST', '/api/v2/dependencies/links', { body: { from: ids.vm, to: ids.vm } })).status,
    ).toBe(400);
    const unknown = await t.request('POST', '/api/v2/dependencies/links', {
      body: { from: ids.vm, to: 'ast_00000000000000000000000000' },
    });
    expect(unknown.status).toBe(400);
    expect((await t.request('DELETE', `/api/v2/dependencies/links/${link.id}`)).status).toBe(200);
    expect((await t.request('DELETE', `/api/v2/dependencies/links/${link.id}`)).status).toBe(404);
  });

  it("drops a deleted asset's declared links", async () => {
    const spare = await t.createAsset({ name: 'spare' });
    const link = await t.request('POST', '/api/v2/dependencies/links', {
      body: { from: spare.id, to: ids.nas },
    });
    expect(link.status).toBe(201);
    await t.request('DELETE', `/api/v2/assets/${spare.id}`);
    // Removed by the asset.deleted subscriber, after the answer: polled, not waited for a fixed 50 ms.
    await vi.waitFor(
      async () => {
        const rows = await t.hub.database.db
          .selectFrom('dependency_links')
          .selectAll()
          .where('from_asset_id', '=', spare.id)
          .execute();
        expect(rows).toEqual([]);
      },
      { timeout: 5_000, interval: 25 },
    );
  });

  it('shows a restricted key only its assets and the edges between them', async () => {
    const limited = await t.createKey({
      role: 'viewer',
      scopes: ['topology:read'],
      allowed_assets: [ids.node, ids.vm],
    });
    const graph = (await t.request('GET', '/api/v2/dependencies', { key: limited.raw_key })).json
      .data as DependencyGraph;
    expect(graph.nodes.map((n) => n.id).sort()).toEqual([ids.node, ids.vm].sort());
    expect(graph.edges).toEqual([{ from: ids.node, to: ids.vm, type: 'hosts', link_id: null, label: null }]);
  });

  it('authorizes: 401 without a key, 403 without topology:read, links need assets:write', async () => {
    expect((await t.request('GET', '/api/v2/dependencies', { key: null })).status).toBe(401);
    const wrong = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    expect((await t.request('GET', '/api/v2/dependencies', { key: wrong.raw_key })).status).toBe(403);
    const body = { from: ids.vm, to: ids.ct };
    const links = '/api/v2/dependencies/links';
    const reader = await t.createKey({ role: 'operator', scopes: ['topology:read', 'assets:read'] });
    expect((await t.request('POST', links, { key: reader.raw_key, body })).status).toBe(403);
    const limited = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [ids.vm, ids.ct] });
    expect((await t.request('POST', links, { key: limited.raw_key, body })).status).toBe(403);
    const operator = await t.createKey({ role: 'operator', scopes: ['assets:write'] });
    expect((await t.request('POST', links, { key: operator.raw_key, body })).status).toBe(201);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    expect((await t.request('GET', '/api/v2/dependencies', { key: viewer.raw_key })).status).toBe(200);
    expect(
      (await t.request('POST', '/api/v2/dependencies/links', { key: viewer.raw_key, body })).status,
    ).toBe(403);
  });
});
