import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Whoami } from '@svc/protocol';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';

async function whoami(t: TestHub, key?: string): Promise<Whoami> {
  const res = await t.request('GET', '/api/v2/whoami', key === undefined ? {} : { key });
  expect(res.status, res.text).toBe(200);
  return res.json.data as Whoami;
}

describe.each(databaseTargets())('GET /whoami ($name)', ({ options }) => {
  let t: TestHub;
  let ownerUserId: string;
  let ownerKeyId: string;

  beforeEach(async () => {
    t = await startTestHub(options);
    const { db } = t.hub.database;
    const owner = await db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    const ownerKey = await db
      .selectFrom('api_keys')
      .select('id')
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    ownerUserId = owner.id;
    ownerKeyId = ownerKey.id;
  });
  afterEach(async () => {
    await t.close();
  });

  it('describes the owner token', async () => {
    await t.createAsset();

    const me = await whoami(t);

    expect(me).toEqual({
      user_id: ownerUserId,
      role: 'owner',
      auth_type: 'api_key',
      scopes: ['*'],
      key_id: ownerKeyId,
      key_name: 'owner token',
      expires_at: null,
      allowed_assets: [],
      available_assets: 1,
    });
  });

  it('describes an admin key with its scopes, name and expiry', async () => {
    const key = await t.createKey({
      name: 'deploy bot',
      role: 'admin',
      scopes: ['assets:read', 'groups:*'],
      expires_at: '2027-01-01T00:00:00.000Z',
    });

    const me = await whoami(t, key.raw_key);

    expect(me).toEqual({
      user_id: ownerUserId,
      role: 'admin',
      auth_type: 'api_key',
      scopes: ['assets:read', 'groups:*'],
      key_id: key.id,
      key_name: 'deploy bot',
      expires_at: '2027-01-01T00:00:00.000Z',
      allowed_assets: [],
      available_assets: 0,
    });
    expect(JSON.stringify(me)).not.toContain(key.raw_key);
  });

  it('names a user, never a key, as user_id for a key made by another key', async () => {
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const child = await t.request('POST', '/api/v2/keys', {
      key: admin.raw_key,
      body: { name: 'child', role: 'viewer', scopes: ['*'] },
    });
    expect(child.status).toBe(201);

    const me = await whoami(t, (child.json.data as { raw_key: string }).raw_key);

    expect(me.user_id).toBe(ownerUserId);
    expect(me.key_name).toBe('child');
  });

  it('counts the assets a key can see, as they are added and deleted', async () => {
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    expect((await whoami(t, admin.raw_key)).available_assets).toBe(0);

    const a = await t.createAsset();
    const b = await t.createAsset();
    await t.createAsset();
    expect((await whoami(t, admin.raw_key)).available_assets).toBe(3);

    expect((await t.request('DELETE', `/api/v2/assets/${a.id}`)).status).toBe(200);
    expect((await whoami(t, admin.raw_key)).available_assets).toBe(2);
    expect((await whoami(t)).available_assets).toBe(2);
    expect((await t.request('DELETE', `/api/v2/assets/${b.id}`)).status).toBe(200);
    expect((await whoami(t, admin.raw_key)).available_assets).toBe(1);
  });

  it('shows a restricted key its own list and counts only those assets', async () => {
    const a = await t.createAsset();
    const b = await t.createAsset();
    await t.createAsset();
    await t.createAsset();
    const key = await t.createKey({
      role: 'operator',
      scopes: ['assets:read'],
      allowed_assets: [a.id, b.id],
    });

    const me = await whoami(t, key.raw_key);

    expect(me).toMatchObject({
      role: 'operator',
      auth_type: 'api_key',
      scopes: ['assets:read'],
      key_id: key.id,
      expires_at: null,
      available_assets: 2,
    });
    expect([...(me.allowed_assets ?? [])].sort()).toEqual([a.id, b.id].sort());
    expect((await whoami(t)).available_assets).toBe(4);

    // assets added elsewhere do not count for it; deleting one of its own does
    await t.createAsset();
    expect((await whoami(t, key.raw_key)).available_assets).toBe(2);
    expect((await t.request('DELETE', `/api/v2/assets/${a.id}`)).status).toBe(200);
    expect((await whoami(t, key.raw_key)).available_assets).toBe(1);
  });

  it('needs no particular scope but does need a valid credential', async () => {
    const narrow = await t.createKey({ role: 'viewer', scopes: ['hub:read'] });
    expect((await whoami(t, narrow.raw_key)).scopes).toEqual(['hub:read']);

    const anonymous = await t.request('GET', '/api/v2/whoami', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json.error).toBe('unauthorized');
    const last = narrow.raw_key.slice(-1) === 'a' ? 'b' : 'a';
    const bogus = await t.request('GET', '/api/v2/whoami', { key: `${narrow.raw_key.slice(0, -1)}${last}` });
    expect(bogus.status).toBe(401);
  });
});
