/** The Proxmox VE client against the fake: shapes coerced, the token header, and every failure mode. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeProxmox, upstreamFailureModes, type FakeProxmox } from '@svc/testkit';
import { contextFor } from '../../testing/upstream-context.js';
import { UpstreamError } from '../base/upstream-error.js';
import { createVirtClient } from './virt.client.js';
import { virtDriver } from './virt.connector.js';

const token = 'svc@pve!hub=11111111-2222-4333-8444-555555555555';

describe('virt client against the fake Proxmox VE', () => {
  let pve: FakeProxmox;
  let ctx: ReturnType<typeof contextFor>;

  beforeAll(async () => {
    pve = await startFakeProxmox({ token, cluster: 'lab', lxcVmidAsString: true });
    ctx = contextFor('virt', pve.server, token);
  });

  afterAll(async () => {
    await ctx.close();
    await pve.close();
  });

  beforeEach(() => {
    pve.server.fail(null);
  });

  it('sends PVEAPIToken with the token as stored', async () => {
    await createVirtClient(ctx.ctx).version();
    expect(pve.server.requests.at(-1)?.headers.authorization).toBe(`PVEAPIToken=${token}`);
  });

  it('maps the inventory: nodes, guests with numeric VMIDs under their node, storage', async () => {
    const items = await virtDriver.inventory(ctx.ctx);
    expect(items.map((i) => `${i.kind}:${i.externalId}`)).toEqual([
      'node:node/pve1',
      'vm:qemu/100',
      'ct:lxc/101',
      'storage:storage/pve1/local',
      'storage:storage/pve1/local-zfs',
    ]);
    expect(items.find((i) => i.externalId === 'lxc/101')).toMatchObject({
      parentExternalId: 'node/pve1',
      facts: { vmid: 101, node: 'pve1', type: 'lxc' },
      status: 'offline',
    });
  });

  it('names an unreachable node (595) as such', async () => {
    const failure = await createVirtClient(ctx.ctx)
      .guestAction('pve9', 'qemu', 100, 'start')
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(UpstreamError);
    expect((failure as UpstreamError).message).toBe('target node unreachable (595 No route to host)');
  });

  it.each(upstreamFailureModes)('fails cleanly on %s', async (mode) => {
    pve.server.fail(mode);
    const failure = await createVirtClient(ctx.ctx)
      .resources()
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
    expect((failure as UpstreamError).message).not.toContain(token.split('=')[1]);
  });
});
