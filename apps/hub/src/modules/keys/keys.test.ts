import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseApiKey } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import { sha256Hex } from '../../platform/crypto.js';

let t: TestHub;
beforeEach(async () => {
  t = await startTestHub();
});
afterEach(async () => {
  await t.close();
});

describe('API keys', () => {
  it('returns the raw key once, in the spec format, and stores only its SHA-256', async () => {
    const res = await t.request('POST', '/api/v2/keys', {
      body: { name: 'ci', role: 'operator', scopes: ['assets:read'] },
    });
    expect(res.status).toBe(201);
    const created = res.json.data as { id: string; raw_key: string; prefix: string };
    expect(created.raw_key).toMatch(/^svc_[a-z2-7]{4}_[a-z2-7]{52}$/);
    expect(parseApiKey(created.raw_key)?.prefix).toBe(created.prefix);

    const fetched = await t.request('GET', `/api/v2/keys/${created.id}`);
    expect(fetched.json.data).not.toHaveProperty('raw_key');
    expect(JSON.stringify(fetched.json)).not.toContain(created.raw_key.slice(10));

    const row = await t.hub.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(row.key_hash).toBe(sha256Hex(created.raw_key));
    expect(JSON.stringify(row)).not.toContain(created.raw_key);
  });

  it('authenticates with the new key and refuses it after revocation', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    expect((await t.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(200);
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    const after = await t.request('GET', '/api/v2/assets', { key: key.raw_key });
    expect(after.status).toBe(401);
    expect(after.json.error).toBe('unauthorized');
    expect(after.headers['www-authenticate']).toBe('Bearer');
  });

  it('sees a key revoked by another hub process on the same database within 5 seconds', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['*'] });
    expect((await t.request('GET', '/api/v2/whoami', { key: key.raw_key })).status).toBe(200);
    // Another process deletes the row; this process has not been told.
    await t.hub.database.db.deleteFrom('api_keys').where('id', '=', key.id).execute();
    t.clock.advance(5_000);
    expect((await t.request('GET', '/api/v2/whoami', { key: key.raw_key })).status).toBe(401);
  });

  it("acts with no more than its user's role now: a demoted admin's keys are demoted with them", async () => {
    const made = await t.request('POST', '/api/auth/users', {
      body: { username: 'dana', password: 'dana password 1', role: 'admin' },
    });
    expect(made.status, made.text).toBe(201);
    const userId = (made.json.data as { id: string }).id;
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'dana', password: 'dana password 1' },
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const created = await t.request('POST', '/api/v2/keys', {
      key: null,
      headers: { cookie, origin: 'http://localhost:80' },
      body: { name: 'dana-admin', role: 'admin', scopes: ['*'] },
    });
    expect(created.status, created.text).toBe(201);
    const key = (created.json.data as { raw_key: string }).raw_key;
    const makeAsset = (name: string) => t.request('POST', '/api/v2/assets', { key, body: { name } });
    expect((await makeAsset('before')).status).toBe(201);

    // Verified and cached as an admin key; the owner now makes dana a viewer.
    const demoted = await t.request('PATCH', `/api/auth/users/${userId}`, { body: { role: 'viewer' } });
    expect(demoted.status, demoted.text).toBe(200);
    const refused = await makeAsset('after');
    expect(refused.status).toBe(403);
    expect((await t.request('GET', '/api/v2/assets?q=after')).json.data).toEqual([]);
    const whoami = await t.request('GET', '/api/v2/whoami', { key });
    expect(whoami.json.data).toMatchObject({ role: 'viewer' });

    // Made an admin again, the key is the admin key it was made as, never more.
    await t.request('PATCH', `/api/auth/users/${userId}`, { body: { role: 'admin' } });
    expect((await makeAsset('again')).status).toBe(201);
  });

  it('records last use at most once a minute', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const lastUsed = async () =>
      (
        await t.hub.database.db
          .selectFrom('api_keys')
          .select('last_used_at')
          .where('id', '=', key.id)
          .executeTakeFirstOrThrow()
      ).last_used_at;
    await t.request('GET', '/api/v2/whoami', { key: key.raw_key });
    const first = await lastUsed();
    expect(first).toBe(t.clock.now().toISOString());
    t.clock.advance(30_000);
    await t.request('GET', '/api/v2/whoami', { key: key.raw_key });
    expect(await lastUsed()).toBe(first);
    t.clock.advance(31_000);
    await t.request('GET', '/api/v2/whoami', { key: key.raw_key });
    expect(await lastUsed()).toBe(t.clock.now().toISOString());
  });

  it('refuses a key whose expiry has passed', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['*'], expires_at: '2026-11-23T13:00:00.000Z' });
    expect((await t.request('GET', '/api/v2/whoami', { key: key.raw_key })).status).toBe(200);
    t.clock.advance(60 * 60 * 1000);
    expect((await t.request('GET', '/api/v2/whoami', { key: key.raw_key })).status).toBe(401);
  });

  it('refuses an expiry in the past, the owner role, unknown scopes and names over 120 characters', async () => {
    const cases = [
      { name: 'x', role: 'admin', scopes: ['*'], expires_at: '2020-01-01T00:00:00Z' },
      { name: 'x', role: 'owner', scopes: ['*'] },
      { name: 'x', role: 'admin', scopes: ['assets:fly'] },
      { name: 'x', role: 'admin', scopes: ['nope:*'] },
      { name: 'x'.repeat(121), role: 'admin', scopes: ['*'] },
      { name: 'x', role: 'admin', scopes: [] },
    ];
    for (const body of cases) {
      const res = await t.request('POST', '/api/v2/keys', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    expect(await t.hub.database.db.selectFrom('api_keys').select('id').execute()).toHaveLength(1);
  });

  it('accepts wildcard and bare-family scopes', async () => {
    const key = await t.createKey({ role: 'operator', scopes: ['files:*', 'assets', 'hub:read'] });
    expect((await t.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(200);
    expect((await t.request('GET', '/api/v2/hub/status', { key: key.raw_key })).status).toBe(200);
    expect((await t.request('GET', '/api/v2/groups', { key: key.raw_key })).json.error).toBe(
      'insufficient_scope',
    );
  });

  it('patches name, scopes and expiry but never the role; null clears the expiry', async () => {
    const key = await t.createKey({
      role: 'operator',
      scopes: ['assets:read'],
      expires_at: '2027-01-01T00:00:00Z',
    });
    // Used first, so the change must replace what the hub remembers of the key, not just what it would read.
    expect((await t.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(200);
    const patched = await t.request('PATCH', `/api/v2/keys/${key.id}`, {
      body: { name: 'renamed', scopes: ['groups:read'], expires_at: null },
    });
    expect(patched.status).toBe(200);
    expect(patched.json.data).toMatchObject({
      name: 'renamed',
      scopes: ['groups:read'],
      expires_at: null,
      role: 'operator',
    });
    expect((await t.request('GET', '/api/v2/groups', { key: key.raw_key })).status).toBe(200);
    expect((await t.request('GET', '/api/v2/assets', { key: key.raw_key })).status).toBe(403);
    const roleChange = await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { role: 'admin' } });
    expect(roleChange.status).toBe(400);
  });

  it('does not let a key grant what it does not hold', async () => {
    const limited = await t.createKey({ role: 'admin', scopes: ['assets:read'] });
    const wider = await t.request('POST', '/api/v2/keys', {
      key: limited.raw_key,
      body: { name: 'wider', role: 'admin', scopes: ['*'] },
    });
    expect(wider.status).toBe(403);
    const same = await t.request('POST', '/api/v2/keys', {
      key: limited.raw_key,
      body: { name: 'same', role: 'viewer', scopes: ['assets:read'] },
    });
    expect(same.status).toBe(201);
  });

  it('refuses to widen an asset-limited key to all assets', async () => {
    const asset = await t.createAsset();
    const key = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [asset.id] });
    const res = await t.request('PATCH', `/api/v2/keys/${key.id}`, { body: { allowed_assets: [] } });
    expect(res.status).toBe(400);
    const limitedAfter = await t.request('GET', '/api/v2/whoami', { key: key.raw_key });
    expect(limitedAfter.json.data).toMatchObject({ allowed_assets: [asset.id], available_assets: 1 });
  });

  it('keeps a limited key limited when its last asset is deleted', async () => {
    const asset = await t.createAsset();
    await t.createAsset();
    const key = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [asset.id] });
    await t.request('DELETE', `/api/v2/assets/${asset.id}`);
    const list = await t.request('GET', '/api/v2/assets', { key: key.raw_key });
    expect(list.status).toBe(200);
    expect(list.json.data).toEqual([]);
    expect(list.json.meta?.total).toBe(0);
  });

  it('audits creation and deletion, and fails the mutation when the audit write fails', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['*'] });
    await t.request('DELETE', `/api/v2/keys/${key.id}`);
    const audit = await t.request('GET', `/api/v2/audit/events?target_id=${key.id}`);
    expect((audit.json.data as { action: string }[]).map((e) => e.action).sort()).toEqual([
      'api_key.created',
      'api_key.deleted',
    ]);

    await t.hub.database.db.schema.dropTable('audit_events').execute();
    const res = await t.request('POST', '/api/v2/keys', {
      body: { name: 'unaudited', role: 'viewer', scopes: ['*'] },
    });
    expect(res.status).toBe(500);
    expect(res.json.error).toBe('internal_error');
    const rows = await t.hub.database.db.selectFrom('api_keys').select('name').execute();
    expect(rows.map((r) => r.name)).not.toContain('unaudited');
  });

  it('does not let an admin revoke the owner key', async () => {
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const list = await t.request('GET', '/api/v2/keys?per_page=500');
    const owner = (list.json.data as { id: string; role: string }[]).find((k) => k.role === 'owner');
    const res = await t.request('DELETE', `/api/v2/keys/${owner!.id}`, { key: admin.raw_key });
    expect(res.status).toBe(403);
    expect((await t.request('GET', '/api/v2/whoami')).status).toBe(200);
  });
});
