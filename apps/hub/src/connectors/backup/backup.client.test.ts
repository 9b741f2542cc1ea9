/** The Proxmox Backup Server client against the fake: datastores, groups, and every failure mode. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeBackupServer, upstreamFailureModes, type FakeBackupServer } from '@svc/testkit';
import { contextFor } from '../../testing/upstream-context.js';
import { UpstreamError } from '../base/upstream-error.js';
import { createBackupClient } from './backup.client.js';
import { backupDriver, readDatastores } from './backup.connector.js';

const token = 'svc@pbs!hub:aaaaaaaa-bbbb-4ccc-8ddd-eeeeeeeeeeee';

describe('backup client against the fake PBS', () => {
  let pbs: FakeBackupServer;
  let ctx: ReturnType<typeof contextFor>;

  beforeAll(async () => {
    pbs = await startFakeBackupServer({ token });
    ctx = contextFor('backup', pbs.server, token);
  });

  afterAll(async () => {
    await ctx.close();
    await pbs.close();
  });

  beforeEach(() => {
    pbs.server.fail(null);
  });

  beforeEach(() => {
    pbs.acl.splice(0, pbs.acl.length, { path: '/datastore', privs: ['Datastore.Audit'] });
  });

  it('reads stores, keeps a broken store with its error, and groups with string ids', async () => {
    const stores = await readDatastores(createBackupClient(ctx.ctx));
    expect(stores.map((s) => [s.store, s.error === null])).toEqual([
      ['main', true],
      ['offsite', true],
      ['usb', false],
      ['archive', false],
    ]);
    expect(stores[1]?.groups).toMatchObject([{ type: 'vm', id: '100', count: 4, namespace: '' }]);
  });

  it('reads the groups of every namespace, each with its namespace path', async () => {
    const [main] = await readDatastores(createBackupClient(ctx.ctx));
    expect(main?.groups.map((g) => [g.namespace, `${g.type}/${g.id}`])).toEqual([
      ['', 'ct/101'],
      ['', 'host/nas'],
      ['', 'vm/100'],
      ['cluster-b', 'vm/200'],
    ]);
    const asked = pbs.server.requests
      .filter((r) => r.path.endsWith('/admin/datastore/main/groups'))
      .map((r) => r.query.get('ns'));
    expect(asked).toContain('cluster-b');
  });

  it('shows maintenance mode: read-only still read, offline with its decoded message', async () => {
    const stores = await readDatastores(createBackupClient(ctx.ctx));
    const offsite = stores.find((s) => s.store === 'offsite');
    const archive = stores.find((s) => s.store === 'archive');
    expect(offsite).toMatchObject({ maintenance: { mode: 'read-only', message: null }, error: null });
    expect(offsite?.groups).toHaveLength(1);
    expect(archive).toMatchObject({
      maintenance: { mode: 'offline', message: 'disk swap until Monday' },
      total: null,
      groups: [],
    });
    expect(archive?.error).toContain('offline maintenance mode');
  });

  it('names the missing Datastore.Audit privilege when PBS shows the token no datastore', async () => {
    pbs.acl.splice(0, pbs.acl.length, { path: '/system', privs: ['Sys.Audit'] });
    const failure = await readDatastores(createBackupClient(ctx.ctx)).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).failure).toBe('permission');
    expect((failure as UpstreamError).message).toContain('Datastore.Audit');
  });

  it('an empty PBS seen by a token that may audit it is just empty', async () => {
    const empty = await startFakeBackupServer({ token, stores: [] });
    const emptyCtx = contextFor('backup', empty.server, token);
    try {
      expect(await readDatastores(createBackupClient(emptyCtx.ctx))).toEqual([]);
    } finally {
      await emptyCtx.close();
      await empty.close();
    }
  });

  it('reports the server as one asset with what it backs up, in every namespace', async () => {
    const [server] = await backupDriver.inventory(ctx.ctx);
    expect(server).toMatchObject({
      externalId: 'server',
      kind: 'backup',
      facts: { backed_up_guests: ['ct/101', 'vm/100', 'vm/200'], backed_up_hosts: ['nas'] },
    });
  });

  it.each(upstreamFailureModes)('fails cleanly on %s', async (mode) => {
    pbs.server.fail(mode);
    const failure = await createBackupClient(ctx.ctx)
      .datastores()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    const expected = {
      unauthorized: 'http',
      server_error: 'http',
      slow: 'timeout',
      malformed: 'malformed',
      unknown_ca: 'tls',
    };
    expect((failure as UpstreamError).failure).toBe(expected[mode]);
  });
});
