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

  it('reads stores, keeps a broken store with its error, and groups with string ids', async () => {
    const stores = await readDatastores(createBackupClient(ctx.ctx));
    expect(stores.map((s) => [s.store, s.error === null])).toEqual([
      ['main', true],
      ['offsite', true],
      ['usb', false],
    ]);
    expect(stores[1]?.groups).toMatchObject([{ type: 'vm', id: '100', count: 4 }]);
  });

  it('reports the server as one asset with what it backs up', async () => {
    const [server] = await backupDriver.inventory(ctx.ctx);
    expect(server).toMatchObject({
      externalId: 'server',
      kind: 'backup',
      facts: { backed_up_guests: ['ct/101', 'vm/100'], backed_up_hosts: ['nas'] },
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
