/**
 * `GET /assets/{id}/blast-radius` through the API: what depends on an asset over declared links, what a key
 * restricted to some assets sees (only those, nothing about the rest), and the refusals.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BlastRadius } from '@svc/protocol';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';

describe.each(databaseTargets())('blast radius ($name)', ({ options }) => {
  let t: TestHub;
  const ids = { db: '', app: '', web: '', cron: '', lonely: '' };

  beforeAll(async () => {
    t = await startTestHub(options);
    for (const name of Object.keys(ids) as (keyof typeof ids)[])
      ids[name] = (await t.createAsset({ name })).id;
    // app and cron depend on db; web depends on app; db depends on web (a cycle).
    for (const [from, to] of [
      [ids.app, ids.db],
      [ids.cron, ids.db],
      [ids.web, ids.app],
      [ids.db, ids.web],
    ]) {
      const res = await t.request('POST', '/api/v2/dependencies/links', { body: { from, to } });
      expect(res.status, res.text).toBe(201);
    }
  });

  afterAll(async () => {
    await t.close();
  });

  const radius = async (id: string, query = '', key?: string) =>
    t.request('GET', `/api/v2/assets/${id}/blast-radius${query}`, key ? { key } : {});

  it('lists what depends on the asset, nearest first, with the way to each, through the cycle once', async () => {
    const res = await radius(ids.db);
    expect(res.status, res.text).toBe(200);
    const r = res.json.data as BlastRadius;
    expect(r.dependents.map((d) => [d.name, d.depth, d.via])).toEqual([
      ['app', 1, 'declared'],
      ['cron', 1, 'declared'],
      ['web', 2, 'declared'],
    ]);
    expect(r.dependents[2]?.path).toEqual([ids.db, ids.app, ids.web]);
    expect(r).toMatchObject({ total: 3, assets: 3, containers: 0, direct: 2, depth_limited: false });
    const shallow = (await radius(ids.db, '?max_depth=1')).json.data as BlastRadius;
    expect(shallow).toMatchObject({ total: 2, depth_limited: true, max_depth: 1 });
    expect(((await radius(ids.lonely)).json.data as BlastRadius).total).toBe(0);
  });

  it('shows a restricted key only the dependents it may see, and nothing of the others', async () => {
    const key = await t.createKey({
      role: 'viewer',
      scopes: ['topology:read'],
      allowed_assets: [ids.db, ids.web],
    });
    const res = await radius(ids.db, '', key.raw_key);
    expect(res.status, res.text).toBe(200);
    // web depends on db only through app, which this key may not see: its graph has no such way.
    expect(res.json.data).toMatchObject({ total: 0, dependents: [] });
    expect(res.text).not.toContain(ids.app);
    expect(res.text).not.toContain(ids.cron);
    const other = await radius(ids.app, '', key.raw_key);
    expect(other.status).toBe(404);
    expect(other.text).not.toContain('app');
  });

  it('refuses a key without topology:read, bad depths and unknown assets', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['assets:read'] });
    expect((await radius(ids.db, '', key.raw_key)).status).toBe(403);
    for (const query of ['?max_depth=0', '?max_depth=21', '?max_depth=deep', '?other=1']) {
      const res = await radius(ids.db, query);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    expect((await radius('ast_00000000000000000000000000')).status).toBe(404);
  });
});
