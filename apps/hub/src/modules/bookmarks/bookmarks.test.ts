/**
 * Terminal bookmarks over REST (decision 0091), on SQLite and, with SVC_TEST_DATABASE_URL, PostgreSQL: each
 * owner's own, on assets it may see, gone with their asset; limits and bad input as 4xx.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { bookmarkLimits, newId, type Bookmark } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

const base = '/api/v2/terminal-bookmarks';

describe.each(databaseTargets())('terminal bookmarks on $name', ({ options }) => {
  const hub = useTestHub(options);
  const keys = { alice: '', bob: '', admin: '', viewer: '', restricted: '' };
  let assetA = '';
  let assetB = '';

  beforeAll(async () => {
    const t = hub();
    assetA = (await t.createAsset({ name: 'bm-a' })).id;
    assetB = (await t.createAsset({ name: 'bm-b' })).id;
    keys.alice = (await t.createKey({ role: 'operator', scopes: ['assets:exec'] })).raw_key;
    keys.bob = (await t.createKey({ role: 'operator', scopes: ['*'] })).raw_key;
    keys.admin = (await t.createKey({ role: 'admin', scopes: ['*'] })).raw_key;
    keys.viewer = (await t.createKey({ role: 'viewer', scopes: ['*'] })).raw_key;
    keys.restricted = (
      await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [assetA] })
    ).raw_key;
  });

  async function create(key: string, body: Record<string, unknown>): Promise<Bookmark> {
    const res = await hub().request('POST', base, { key, body });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Bookmark;
  }

  async function list(key: string): Promise<Bookmark[]> {
    const res = await hub().request('GET', `${base}?per_page=500`, { key });
    expect(res.status, res.text).toBe(200);
    return res.json.data as Bookmark[];
  }

  it('keeps a bookmark to its owner: others, admins included, neither list nor change it', async () => {
    const t = hub();
    const mark = await create(keys.alice, {
      asset_id: assetA,
      directory: "/srv/it's here",
      name: 'web root',
    });
    expect(mark).toMatchObject({ asset_id: assetA, directory: "/srv/it's here", name: 'web root' });
    expect(mark.id).toMatch(/^bmk_/);
    expect(await list(keys.alice)).toContainEqual(mark);
    for (const key of [keys.bob, keys.admin]) {
      expect((await list(key)).map((b) => b.id)).not.toContain(mark.id);
      expect((await t.request('PATCH', `${base}/${mark.id}`, { key, body: { name: 'x' } })).status).toBe(404);
      expect((await t.request('DELETE', `${base}/${mark.id}`, { key })).status).toBe(404);
    }
    t.clock.advance(1000);
    const renamed = await t.request('PATCH', `${base}/${mark.id}`, {
      key: keys.alice,
      body: { name: null, directory: '/var/log' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.data).toMatchObject({ name: null, directory: '/var/log' });
    expect((await t.request('DELETE', `${base}/${mark.id}`, { key: keys.alice })).status).toBe(200);
    expect((await list(keys.alice)).map((b) => b.id)).not.toContain(mark.id);
  });

  it('needs an asset the caller may see; a restricted key lists only its assets', async () => {
    const t = hub();
    const unknown = await t.request('POST', base, {
      key: keys.alice,
      body: { asset_id: newId('asset'), directory: '/tmp' },
    });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error).toBe('validation');
    const hidden = await t.request('POST', base, {
      key: keys.restricted,
      body: { asset_id: assetB, directory: '/tmp' },
    });
    expect(hidden.status).toBe(400);
    const own = await create(keys.restricted, { asset_id: assetA, directory: '/tmp' });
    expect((await list(keys.restricted)).map((b) => b.id)).toEqual([own.id]);
  });

  it('forgets the bookmarks of a deleted asset', async () => {
    const t = hub();
    const doomed = await t.createAsset({ name: 'bm-doomed' });
    const mark = await create(keys.bob, { asset_id: doomed.id, directory: '/opt' });
    expect((await t.request('DELETE', `/api/v2/assets/${doomed.id}`)).status).toBe(200);
    await expect.poll(async () => (await list(keys.bob)).map((b) => b.id)).not.toContain(mark.id);
  });

  it('forgets the bookmarks of a deleted key', async () => {
    const t = hub();
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec'] });
    await create(key.raw_key, { asset_id: assetA, directory: '/srv' });
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    const left = async () =>
      (
        await t.hub.database.db
          .selectFrom('terminal_bookmarks')
          .select('id')
          .where('owner_id', '=', key.id)
          .execute()
      ).length;
    await expect.poll(left).toBe(0);
  });

  it('refuses bad input with 400, the viewer role with 403, and beyond the limit with 409', async () => {
    const t = hub();
    const bad: Record<string, unknown>[] = [
      {},
      { asset_id: assetA },
      { asset_id: assetA, directory: 'relative/path' },
      { asset_id: assetA, directory: '/tmp\nrm -rf /' },
      { asset_id: assetA, directory: `/${'d'.repeat(bookmarkLimits.directoryLength)}` },
      { asset_id: 'not-an-asset', directory: '/tmp' },
      { asset_id: assetA, directory: '/tmp', name: '' },
      { asset_id: assetA, directory: '/tmp', owner_id: 'x' },
    ];
    for (const body of bad) {
      const res = await t.request('POST', base, { key: keys.alice, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
    const viewer = await t.request('POST', base, {
      key: keys.viewer,
      body: { asset_id: assetA, directory: '/' },
    });
    expect(viewer.status).toBe(403);
    expect(viewer.json.error).toBe('read_only_role');
    expect(await list(keys.viewer)).toEqual([]);

    const key = (await t.createKey({ role: 'operator', scopes: ['assets:exec'] })).raw_key;
    for (let i = 0; i < bookmarkLimits.perOwner; i++) {
      const res = await t.request('POST', base, { key, body: { asset_id: assetA, directory: `/d${i}` } });
      if (res.status !== 201) throw new Error(`create ${i}: ${res.text}`);
    }
    const over = await t.request('POST', base, { key, body: { asset_id: assetA, directory: '/one-more' } });
    expect(over.status).toBe(409);
  });
});
