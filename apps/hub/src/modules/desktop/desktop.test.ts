/**
 * Desktop credentials (spec 5.5.2): an admin sets an asset's VNC password; no read returns it (not the
 * status, not the audit trail, not the asset); only the sessions area's release opens it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';

const password = 'vnc-Secret-7';

describe.each(databaseTargets())('desktop credentials ($name)', ({ options }) => {
  let t: TestHub;
  let assetId: string;
  beforeAll(async () => {
    t = await startTestHub(options);
    assetId = (await t.createAsset({ name: 'desk-1' })).id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('is write-only: set by an admin, never in a read, released only to the sessions area', async () => {
    const set = await t.request('PUT', `/api/v2/desktop/credentials/${assetId}`, { body: { password } });
    expect(set.status).toBe(200);
    expect(set.json.data).toMatchObject({ asset_id: assetId, password_set: true, username_set: false });

    const reads = [
      await t.request('GET', `/api/v2/desktop/credentials/${assetId}`),
      await t.request('GET', `/api/v2/assets/${assetId}`),
      await t.request('GET', `/api/v2/audit/events?per_page=100`),
    ];
    for (const read of reads) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain(password);
    }
    expect(reads[0]?.json.data).toMatchObject({ password_set: true });
    const actions = (reads[2]?.json.data as { action: string }[]).map((e) => e.action);
    expect(actions).toContain('desktop.credentials_set');

    const stored = await t.hub.database.db
      .selectFrom('desktop_credentials')
      .selectAll()
      .where('asset_id', '=', assetId)
      .executeTakeFirstOrThrow();
    expect(stored.password_sealed).not.toContain(password);
    expect(await t.hub.services.desktopCredentials.release(assetId)).toEqual({ password, username: null });
  });

  it('is an admin matter, checked against allowed assets, and 404 for an unknown asset', async () => {
    const operator = await t.createKey({ role: 'operator', scopes: ['assets:read', 'assets:write'] });
    const refused = await t.request('PUT', `/api/v2/desktop/credentials/${assetId}`, {
      key: operator.raw_key,
      body: { password: 'other' },
    });
    expect(refused.status).toBe(403);
    const read = await t.request('GET', `/api/v2/desktop/credentials/${assetId}`, { key: operator.raw_key });
    expect(read.status).toBe(200);
    expect(read.text).not.toContain(password);

    const other = await t.createAsset({ name: 'desk-2' });
    const elsewhere = await t.createKey({
      role: 'operator',
      scopes: ['assets:read'],
      allowed_assets: [other.id],
    });
    // Outside its allowed assets, as for any asset route: the asset is not there for this key.
    expect(
      (await t.request('GET', `/api/v2/desktop/credentials/${assetId}`, { key: elsewhere.raw_key })).status,
    ).toBe(404);
    expect((await t.request('GET', '/api/v2/desktop/credentials/ast_missing')).status).toBe(404);
  });

  it('refuses an empty or oversized password', async () => {
    for (const body of [{ password: '' }, { password: 'x'.repeat(257) }, { password: 'ok', extra: 1 }]) {
      const answer = await t.request('PUT', `/api/v2/desktop/credentials/${assetId}`, { body });
      expect(answer.status).toBe(400);
    }
  });

  it('is cleared by an admin, and goes with a deleted asset', async () => {
    const cleared = await t.request('DELETE', `/api/v2/desktop/credentials/${assetId}`);
    expect(cleared.json.data).toMatchObject({ password_set: false, updated_at: null });
    expect(await t.hub.services.desktopCredentials.release(assetId)).toBeNull();
    const again = await t.request('DELETE', `/api/v2/desktop/credentials/${assetId}`);
    expect(again.json.data).toMatchObject({ password_set: false });

    const doomed = await t.createAsset({ name: 'desk-3' });
    await t.request('PUT', `/api/v2/desktop/credentials/${doomed.id}`, {
      body: { password, username: 'me' },
    });
    expect(await t.hub.services.desktopCredentials.release(doomed.id)).toEqual({ password, username: 'me' });
    expect((await t.request('DELETE', `/api/v2/assets/${doomed.id}`)).status).toBe(200);
    await expect.poll(() => t.hub.services.desktopCredentials.release(doomed.id)).toBeNull();
  });
});
