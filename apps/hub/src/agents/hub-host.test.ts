/**
 * The hub's own host (security rule 10): whoever asks, only an admin reads or runs anything there, and a
 * viewer reads no secrets anywhere. The attack this closes: a viewer key with `files:read`, limited to the
 * hub's own asset, read the owner's credentials through the local agent.
 */
import { describe, expect, it } from 'vitest';
import type { Asset } from '@svc/protocol';
import { databaseTargets, type TestHub } from '@svc/testkit';
import { systemOwnerContext } from '../access/principal.js';
import type { FakeHandlers } from '../testing/fake-gateway.js';
import { useOperations } from '../testing/operations-app.js';
import { execOutcome } from '../testing/exec-outcome.js';

const answers: FakeHandlers = {
  'exec.run': () => execOutcome({ stdout: 'ran' }),
  'files.read': ({ path }) => ({ path, size: 6, data_base64: Buffer.from('secret').toString('base64') }),
  'files.list': ({ path }) => ({ path, truncated: false, entries: [] }),
  'files.write': ({ path }) => ({ path, size: 1 }),
  'processes.list': () => ({ processes: [] }),
  'system.logs': () => ({ source: 'journal', entries: [], truncated: false }),
  'system.disks': () => ({ filesystems: [] }),
};

async function hubHostAsset(t: TestHub): Promise<string> {
  const asset = await t.createAsset({ name: 'the-hub-machine' });
  await t.hub.services.assets.markHubHost(systemOwnerContext(), asset.id);
  return asset.id;
}

describe.each(databaseTargets())("the hub's own host ($name)", ({ options }) => {
  const use = useOperations(options);

  it('shows that an asset is the hub host', async () => {
    const { t } = use();
    const host = await hubHostAsset(t);
    const other = await t.createAsset();
    const res = await t.request('GET', `/api/v2/assets/${host}`);
    expect((res.json.data as Asset).hub_host).toBe(true);
    const plain = await t.request('GET', `/api/v2/assets/${other.id}`);
    expect((plain.json.data as Asset).hub_host).toBe(false);
  });

  it('refuses exec, files, processes and logs there to anyone below admin, before the agent is asked', async () => {
    const { t, ops } = use();
    const host = await hubHostAsset(t);
    ops.gateway.connect(host, { handlers: answers });
    const operator = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [host] });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['files:read'], allowed_assets: [host] });

    const attempts: [string, string, unknown?][] = [
      ['GET', `/api/v2/assets/${host}/files/read?path=/var/lib/svc/owner-credentials.txt`],
      ['GET', `/api/v2/assets/${host}/files?path=/var/lib/svc`],
      ['POST', `/api/v2/assets/${host}/files/write`, { path: '/tmp/x', content_base64: 'eA==' }],
      ['POST', `/api/v2/assets/${host}/exec`, { command: 'cat /proc/1/environ' }],
      ['POST', '/api/v2/exec', { targets: [host], command: 'id' }],
      ['GET', `/api/v2/assets/${host}/processes`],
      ['GET', `/api/v2/assets/${host}/logs`],
    ];
    for (const [method, url, body] of attempts) {
      const res = await ops.request(method, url, { key: operator.raw_key, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${url}: ${JSON.stringify(res.json)}`).toBe(403);
      expect(res.json.error).toBe('admin_required');
    }
    // The viewer of the original attack: refused before anything reaches the agent.
    const read = await ops.request(
      'GET',
      `/api/v2/assets/${host}/files/read?path=/var/lib/svc/owner-credentials.txt`,
      { key: viewer.raw_key },
    );
    expect(read.status).toBe(403);
    expect(ops.gateway.callsOf()).toEqual([]);

    // Reads that cannot reach a secret still work there for the operator.
    const disks = await ops.request('GET', `/api/v2/assets/${host}/disks`, { key: operator.raw_key });
    expect(disks.status, JSON.stringify(disks.json)).toBe(200);

    // An admin may: the agent itself keeps the hub's data directory out of reach (agent tests).
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const ran = await ops.request('POST', `/api/v2/assets/${host}/exec`, {
      key: admin.raw_key,
      body: { command: 'id' },
    });
    expect(ran.status).toBe(200);
  });

  it('runs nothing anywhere when one fan-out target is the hub host and the caller is not an admin', async () => {
    const { t, ops } = use();
    const host = await hubHostAsset(t);
    const other = await t.createAsset();
    ops.gateway.connect(host, { handlers: answers });
    ops.gateway.connect(other.id, { handlers: answers });
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const group = await t.request('POST', '/api/v2/groups', {
      body: { name: 'everything', asset_ids: [other.id, host] },
    });
    expect(group.status, group.text).toBe(201);
    const groupId = (group.json.data as { id: string }).id;

    for (const body of [
      { targets: [other.id, host], command: 'id' },
      { group: groupId, command: 'id' },
    ]) {
      const res = await ops.request('POST', '/api/v2/exec', { key: operator.raw_key, body });
      expect(res.status).toBe(403);
    }
    expect(ops.gateway.callsOf('exec.run')).toEqual([]);
  });

  it('never lets a viewer read file contents, logs, or process and cron command lines, on any asset', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    ops.gateway.connect(asset.id, { handlers: answers });
    const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
    for (const url of [
      `/api/v2/assets/${asset.id}/files/read?path=/etc/shadow`,
      `/api/v2/assets/${asset.id}/logs`,
      `/api/v2/assets/${asset.id}/processes`,
      `/api/v2/assets/${asset.id}/cron`,
    ]) {
      const res = await ops.request('GET', url, { key: viewer.raw_key });
      expect(res.status, url).toBe(403);
      expect(res.json.error).toBe('read_only_role');
    }
    const listing = await ops.request('GET', `/api/v2/assets/${asset.id}/files?path=/etc`, {
      key: viewer.raw_key,
    });
    expect(listing.status).toBe(200);
    expect(ops.gateway.callsOf().map((c) => c.type)).toEqual(['files.list']);
  });
});
