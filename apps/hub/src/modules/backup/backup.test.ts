/**
 * Backup routes against the fake Proxmox Backup Server over real TLS: datastores with usage, a store that
 * cannot be read, the last backup per group in every namespace, maintenance mode, a token without
 * Datastore.Audit named as such, its token format, failures as 502, authorization by asset.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { BackupDatastores, Connector, ConnectorCheck } from '@svc/protocol';
import { startFakeBackupServer, startTestHub, type FakeBackupServer, type TestHub } from '@svc/testkit';
import { addConnector, connectorAssetId, fakeUpstreamResolver } from '../../testing/connector-fixtures.js';

const token = 'backup@pbs!hub:5c1e2f3a-4b5c-4d6e-9f70-8a9b0c1d2e3f';

describe('backup routes', () => {
  let t: TestHub;
  let pbs: FakeBackupServer;
  let connector: Connector;
  let server: string;

  beforeAll(async () => {
    pbs = await startFakeBackupServer({ token });
    t = await startTestHub({
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeUpstreamResolver },
      connectors: { checkIntervalMs: 0, timeoutMs: 1_000 },
    });
    connector = await addConnector(t, {
      kind: 'backup',
      name: 'pbs',
      base_url: pbs.server.url('pbs.test'),
      credentials: token,
      tls_mode: 'pinned_ca',
      tls_ca: pbs.server.ca,
    });
    server = await connectorAssetId(t, connector.id, 'server');
  });

  afterAll(async () => {
    await t.close();
    await pbs.close();
  });

  beforeEach(() => {
    pbs.server.fail(null);
  });

  it('sends the PBS token format (colon before the secret)', () => {
    expect(pbs.server.requests.at(-1)?.headers.authorization).toBe(`PBSAPIToken=${token}`);
  });

  it('lists datastores with usage and the last backup per group', async () => {
    const res = await t.request('GET', `/api/v2/backup/assets/${server}/datastores`);
    expect(res.status, res.text).toBe(200);
    const data = res.json.data as BackupDatastores;
    expect(data).toMatchObject({ asset_id: server, connector_id: connector.id });
    const [main, offsite, usb, archive] = data.datastores;
    expect(main).toMatchObject({
      store: 'main',
      comment: 'primary pool',
      total: 4e12,
      used: 1.25e12,
      avail: 2.75e12,
      error: null,
    });
    expect(main?.groups.map((g) => [g.namespace, `${g.type}/${g.id}`])).toEqual([
      ['', 'ct/101'],
      ['', 'host/nas'],
      ['', 'vm/100'],
      // Backups in a namespace (one per cluster here) show, with its path.
      ['cluster-b', 'vm/200'],
    ]);
    const vm = main?.groups.find((g) => g.id === '100');
    expect(vm?.count).toBe(14);
    expect(Date.parse(vm?.last_backup_at ?? '')).toBe((pbs.stores[0]?.groups[0]?.lastBackup ?? 0) * 1000);
    expect(offsite?.estimated_full_at).not.toBeNull();
    expect(usb).toMatchObject({ store: 'usb', total: null, used: null, avail: null, groups: [] });
    expect(usb?.error).toContain('unable to open chunk store');
    // Maintenance mode: a read-only store still reads; an offline one says so, with the admin's message.
    expect(offsite).toMatchObject({ maintenance: { mode: 'read-only', message: null }, error: null });
    expect(main?.maintenance).toBeNull();
    expect(archive).toMatchObject({
      store: 'archive',
      maintenance: { mode: 'offline', message: 'disk swap until Monday' },
      groups: [],
    });
    expect(archive?.error).toContain('offline maintenance mode');
  });

  it('a token without Datastore.Audit: the test names the missing privilege, health error', async () => {
    const acl = pbs.acl.splice(0, pbs.acl.length, { path: '/system', privs: ['Sys.Audit'] });
    try {
      const res = await t.request('POST', `/api/v2/connectors/${connector.id}/test`);
      expect(res.status, res.text).toBe(200);
      const check = res.json.data as ConnectorCheck;
      expect(check.health).toBe('error');
      expect(check.error).toContain('Datastore.Audit');
      const read = (await t.request('GET', `/api/v2/connectors/${connector.id}`)).json.data as Connector;
      expect(read.health).toBe('error');
      expect(read.last_error).toContain('Datastore.Audit');
      const stores = await t.request('GET', `/api/v2/backup/assets/${server}/datastores`);
      expect([stores.status, stores.json.error]).toEqual([502, 'upstream_error']);
      expect(stores.json.message).toContain('Datastore.Audit');
    } finally {
      pbs.acl.splice(0, pbs.acl.length, ...acl);
      await t.request('POST', `/api/v2/connectors/${connector.id}/test`);
    }
  });

  it('an answer that breaks the mapping makes the test an unhealthy 200, not a 500', async () => {
    const group = pbs.stores[0]?.groups[0];
    if (!group) throw new Error('no group in the fake');
    const lastBackup = group.lastBackup;
    // An epoch no JavaScript Date can hold passes the schema and throws a RangeError in the mapping.
    group.lastBackup = 9e15;
    try {
      const res = await t.request('POST', `/api/v2/connectors/${connector.id}/test`);
      expect(res.status, res.text).toBe(200);
      expect(res.json.data).toMatchObject({ health: 'error', assets: null });
      expect((res.json.data as ConnectorCheck).error).toContain('unexpected answer');
    } finally {
      group.lastBackup = lastBackup;
      await t.request('POST', `/api/v2/connectors/${connector.id}/test`);
    }
  });

  it('records what the server backs up on its asset, for the graph', async () => {
    const asset = await t.request('GET', `/api/v2/assets/${server}`);
    expect(asset.json.data).toMatchObject({
      source: 'connector',
      connector: { kind: 'backup', external_id: 'server' },
    });
  });

  it('answers upstream failures as 502 with the reason (PBS error bodies are text)', async () => {
    pbs.server.fail('server_error');
    const failed = await t.request('GET', `/api/v2/backup/assets/${server}/datastores`);
    expect(failed.status).toBe(502);
    expect(failed.json.message).toBe('pbs: HTTP 500 Internal Server Error: internal error');
    pbs.server.fail('unauthorized');
    const unauthorized = await t.request('GET', `/api/v2/backup/assets/${server}/datastores`);
    expect(unauthorized.json.message).toBe('pbs: HTTP 401 Unauthorized');
    pbs.server.fail('malformed');
    expect((await t.request('GET', `/api/v2/backup/assets/${server}/datastores`)).status).toBe(502);
  });

  it('a PVE-style token is refused by the server', async () => {
    const wrong = await addConnector(t, {
      kind: 'backup',
      name: 'pve-style',
      base_url: pbs.server.url('pbs.test'),
      credentials: token.replace(':', '='),
      tls_mode: 'pinned_ca',
      tls_ca: pbs.server.ca,
    });
    const read = await t.request('GET', `/api/v2/connectors/${wrong.id}`);
    expect(read.json.data).toMatchObject({
      health: 'error',
      last_error: 'HTTP 401 Unauthorized: authentication failed - invalid token',
    });
    await t.request('DELETE', `/api/v2/connectors/${wrong.id}`);
  });

  it('authorizes by asset: 401, 403, allowed_assets 404, and 409 for assets of another kind', async () => {
    const url = `/api/v2/backup/assets/${server}/datastores`;
    expect((await t.request('GET', url, { key: null })).status).toBe(401);
    const wrong = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    expect((await t.request('GET', url, { key: wrong.raw_key })).status).toBe(403);
    const viewer = await t.createKey({ role: 'viewer', scopes: ['connectors:read'] });
    expect((await t.request('GET', url, { key: viewer.raw_key })).status).toBe(200);
    const other = await t.createAsset();
    const limited = await t.createKey({
      role: 'operator',
      scopes: ['connectors:read'],
      allowed_assets: [other.id],
    });
    expect((await t.request('GET', url, { key: limited.raw_key })).status).toBe(404);
    const allowed = await t.createKey({
      role: 'operator',
      scopes: ['connectors:read'],
      allowed_assets: [server],
    });
    expect((await t.request('GET', url, { key: allowed.raw_key })).status).toBe(200);
    expect((await t.request('GET', `/api/v2/backup/assets/${other.id}/datastores`)).status).toBe(409);
  });
});
