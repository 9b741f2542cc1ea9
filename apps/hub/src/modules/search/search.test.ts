import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SearchHit } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';

let t: TestHub;
const ids: Record<string, string> = {};

async function search(
  query: string,
  key?: string,
): Promise<{ status: number; hits: SearchHit[]; total: number; error?: string }> {
  const res = await t.request('GET', `/api/v2/search?per_page=500&${query}`, key ? { key } : {});
  return {
    status: res.status,
    hits: (res.json.data as SearchHit[] | undefined) ?? [],
    total: res.json.meta?.total ?? -1,
    ...(res.json.error ? { error: res.json.error } : {}),
  };
}

const q = (text: string) => `q=${encodeURIComponent(text)}`;

beforeAll(async () => {
  t = await startTestHub();
  ids.web = (
    await t.createAsset({
      name: 'web-frontend',
      hostname: 'www01.example.lan',
      ip_addresses: ['10.20.30.40'],
      tags: ['Production', 'edge'],
    })
  ).id;
  ids.db = (
    await t.createAsset({
      name: 'db-primary',
      hostname: 'pg01.lan',
      ip_addresses: ['10.20.30.41', 'fd00::41'],
      tags: ['database', 'edge'],
    })
  ).id;
  ids.backup = (await t.createAsset({ name: 'Backup Box [cold]', tags: ['cold'] })).id;
  for (const [name, members] of [
    ['Web servers', [ids.web]],
    ['Databases', [ids.db]],
    ['Edge', [ids.web, ids.db]],
  ] as const) {
    const res = await t.request('POST', '/api/v2/groups', { body: { name, asset_ids: members } });
    ids[name] = (res.json.data as { id: string }).id;
  }
});
afterAll(async () => {
  await t.close();
});

describe('search', () => {
  it.each([
    ['name', 'FRONTEND', 'web-frontend', 'web-frontend'],
    ['hostname', 'PG01', 'db-primary', 'pg01.lan'],
    ['IP address', '10.20.30.41', 'db-primary', '10.20.30.41'],
    ['IPv6 address', 'FD00::41', 'db-primary', 'fd00::41'],
    ['tag', 'production', 'web-frontend', 'Production'],
  ])('finds an asset by %s, ignoring case, and says which field matched', async (_f, text, name, matched) => {
    const { status, hits, total } = await search(`type=asset&${q(text)}`);
    expect(status).toBe(200);
    const id = name === 'web-frontend' ? ids.web : ids.db;
    expect(hits).toEqual([{ type: 'asset', id, name, matched }]);
    expect(total).toBe(1);
  });

  it('finds every asset whose text contains the query', async () => {
    const { hits } = await search(`type=asset&${q('10.20.30.4')}`);
    expect(hits.map((h) => h.id).sort()).toEqual([ids.web, ids.db].sort());
  });

  it('finds groups by name, after the assets', async () => {
    const { hits, total } = await search(q('WEB'));
    expect(hits).toEqual([
      { type: 'asset', id: ids.web, name: 'web-frontend', matched: 'web-frontend' },
      { type: 'group', id: ids['Web servers'], name: 'Web servers', matched: 'Web servers' },
    ]);
    expect(total).toBe(2);
  });

  it('filters by type', async () => {
    const groupsOnly = await search(`type=group&${q('e')}`);
    expect(groupsOnly.hits.every((h) => h.type === 'group')).toBe(true);
    expect(groupsOnly.hits.map((h) => h.name).sort()).toEqual(['Databases', 'Edge', 'Web servers']);
    expect(groupsOnly.total).toBe(3);

    const assetsOnly = await search(`type=asset&${q('edge')}`);
    expect(assetsOnly.hits.map((h) => h.id).sort()).toEqual([ids.web, ids.db].sort());
    expect(assetsOnly.total).toBe(2);

    const both = await search(q('edge'));
    expect(both.total).toBe(3);
    expect(both.hits.map((h) => h.type)).toEqual(['asset', 'asset', 'group']);

    expect((await search(`type=host&${q('edge')}`)).status).toBe(400);
  });

  it('matches query text literally, never list syntax or LIKE wildcards', async () => {
    for (const text of ['%', '_', '"', ',', '","', '[]']) {
      const { status, hits, total } = await search(q(text));
      expect(status, text).toBe(200);
      expect(hits, text).toEqual([]);
      expect(total, text).toBe(0);
    }
    const bracket = await search(q('['));
    expect(bracket.hits.map((h) => h.id)).toEqual([ids.backup]);
    expect(bracket.total).toBe(1);
  });

  it('refuses an empty, blank or missing q and one over 200 characters', async () => {
    for (const query of ['q=', `q=${encodeURIComponent('   ')}`, '', `q=${'a'.repeat(201)}`]) {
      const res = await search(query);
      expect(res.status, query).toBe(400);
      expect(res.error).toBe('validation');
    }
    expect((await search(`q=${'a'.repeat(200)}`)).status).toBe(200);
  });

  it('needs the search:read scope', async () => {
    const key = await t.createKey({ role: 'viewer', scopes: ['assets:read', 'groups:read'] });
    const res = await search(q('web'), key.raw_key);
    expect(res.status).toBe(403);
    expect(res.error).toBe('insufficient_scope');
    const allowed = await t.createKey({ role: 'viewer', scopes: ['search:read'] });
    expect((await search(q('web'), allowed.raw_key)).total).toBe(2);
  });
});

describe('search through a key limited to some assets', () => {
  let key: string;
  beforeAll(async () => {
    key = (await t.createKey({ role: 'viewer', scopes: ['search:read'], allowed_assets: [ids.web!] }))
      .raw_key;
  });

  it('never returns or counts an asset outside the list', async () => {
    const owner = await search(q('10.20.30'));
    expect(owner.total).toBe(2);

    const limited = await search(q('10.20.30'), key);
    expect(limited.hits.map((h) => h.id)).toEqual([ids.web]);
    expect(limited.total).toBe(1);
    expect(await search(q('db-primary'), key)).toMatchObject({ hits: [], total: 0 });
    expect(await search(q('pg01'), key)).toMatchObject({ hits: [], total: 0 });
  });

  it('returns only groups with a visible member', async () => {
    expect(await search(q('Databases'), key)).toMatchObject({ hits: [], total: 0 });
    const groups = await search(`type=group&${q('e')}`, key);
    expect(groups.hits.map((h) => h.name).sort()).toEqual(['Edge', 'Web servers']);
    expect(groups.total).toBe(2);
  });

  it('pages and counts only what the key may see', async () => {
    const all = await search(q('e'), key);
    expect(all.total).toBe(all.hits.length);
    const visible = new Set([ids.web, ids['Web servers'], ids.Edge]);
    expect(all.hits.every((h) => visible.has(h.id))).toBe(true);
    expect(all.hits.map((h) => h.id).sort()).toEqual([...visible].sort());
  });
});

describe('search paging', () => {
  it('pages across assets, then groups, each hit exactly once, with the total of both', async () => {
    const made: string[] = [];
    for (let i = 0; i < 7; i++) made.push((await t.createAsset({ name: `pager-asset-${i % 3}` })).id);
    for (let i = 0; i < 5; i++) {
      const res = await t.request('POST', '/api/v2/groups', { body: { name: `pager-group-${i % 2}` } });
      made.push((res.json.data as { id: string }).id);
    }

    const seen: SearchHit[] = [];
    for (let page = 1; page <= 5; page++) {
      const res = await t.request('GET', `/api/v2/search?q=pager&per_page=3&page=${page}`);
      expect(res.status).toBe(200);
      expect(res.json.meta).toEqual({ total: 12, page, per_page: 3 });
      const hits = res.json.data as SearchHit[];
      expect(hits).toHaveLength(page <= 4 ? 3 : 0);
      seen.push(...hits);
    }
    const seenIds = seen.map((h) => h.id);
    expect(new Set(seenIds).size).toBe(12);
    expect([...seenIds].sort()).toEqual([...made].sort());
    expect(seen.map((h) => h.type)).toEqual([
      ...Array<string>(7).fill('asset'),
      ...Array<string>(5).fill('group'),
    ]);
    const names = seen.map((h) => h.name);
    expect(names.slice(0, 7)).toEqual([...names.slice(0, 7)].sort());
    expect(names.slice(7)).toEqual([...names.slice(7)].sort());

    const typed = await t.request('GET', '/api/v2/search?q=pager&type=group&per_page=2&page=3');
    expect(typed.json.meta?.total).toBe(5);
    expect((typed.json.data as SearchHit[]).map((h) => h.type)).toEqual(['group']);
  });
});
