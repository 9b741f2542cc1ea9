import { beforeAll, describe, expect, it } from 'vitest';
import { newId, type Group } from '@svc/protocol';
import type { TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

async function createGroup(t: TestHub, body: Record<string, unknown>, key?: string): Promise<Group> {
  const res = await t.request('POST', '/api/v2/groups', { body, ...(key ? { key } : {}) });
  if (res.status !== 201) throw new Error(`group create failed: ${res.status} ${res.text}`);
  return res.json.data as Group;
}

async function listGroups(t: TestHub, key?: string): Promise<{ data: Group[]; total: number }> {
  const res = await t.request('GET', '/api/v2/groups?per_page=500', key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return { data: res.json.data as Group[], total: res.json.meta?.total ?? -1 };
}

describe('groups', () => {
  const hub = useTestHub();

  it('creates a group with members, and gets and lists it', async () => {
    const t = hub();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const res = await t.request('POST', '/api/v2/groups', {
      body: { name: 'web', description: 'front ends', asset_ids: [b.id, a.id] },
    });
    expect(res.status, res.text).toBe(201);
    const group = res.json.data as Group;
    const now = t.clock.now().toISOString();
    expect(group).toEqual({
      id: group.id,
      name: 'web',
      description: 'front ends',
      asset_ids: [a.id, b.id].sort(),
      created_at: now,
      updated_at: now,
    });
    expect(group.id).toMatch(/^grp_/);
    expect((await t.request('GET', `/api/v2/groups/${group.id}`)).json.data).toEqual(group);
    expect((await listGroups(t)).data).toContainEqual(group);
  });

  it('creates an empty group when no members are named', async () => {
    const t = hub();
    const group = await createGroup(t, { name: 'empty' });
    expect(group).toMatchObject({ asset_ids: [], description: null });
  });

  it('renames a group and replaces its members with PATCH', async () => {
    const t = hub();
    const [a, b, c] = [await t.createAsset(), await t.createAsset(), await t.createAsset()];
    const group = await createGroup(t, { name: 'db', description: 'x', asset_ids: [a.id, b.id] });

    t.clock.advance(60_000);
    const renamed = await t.request('PATCH', `/api/v2/groups/${group.id}`, { body: { name: 'databases' } });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toEqual({
      ...group,
      name: 'databases',
      updated_at: t.clock.now().toISOString(),
    });

    const replaced = await t.request('PATCH', `/api/v2/groups/${group.id}`, {
      body: { asset_ids: [c.id, a.id], description: null },
    });
    expect(replaced.status).toBe(200);
    const fetched = (await t.request('GET', `/api/v2/groups/${group.id}`)).json.data as Group;
    expect(fetched).toEqual(replaced.json.data);
    expect(fetched).toMatchObject({ name: 'databases', description: null, asset_ids: [a.id, c.id].sort() });

    const emptied = await t.request('PATCH', `/api/v2/groups/${group.id}`, { body: { asset_ids: [] } });
    expect((emptied.json.data as Group).asset_ids).toEqual([]);
    expect(((await t.request('GET', `/api/v2/groups/${group.id}`)).json.data as Group).asset_ids).toEqual([]);
  });

  it('deletes a group and keeps its assets', async () => {
    const t = hub();
    const a = await t.createAsset();
    const group = await createGroup(t, { name: 'doomed', asset_ids: [a.id] });
    const res = await t.request('DELETE', `/api/v2/groups/${group.id}`);
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(group);
    expect((await t.request('GET', `/api/v2/groups/${group.id}`)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/groups/${group.id}`)).status).toBe(404);
    expect((await t.request('PATCH', `/api/v2/groups/${group.id}`, { body: { name: 'x' } })).status).toBe(
      404,
    );
    expect((await t.request('GET', `/api/v2/assets/${a.id}`)).status).toBe(200);
    expect((await listGroups(t)).data.map((g) => g.id)).not.toContain(group.id);
  });

  it('refuses unknown member ids and changes nothing', async () => {
    const t = hub();
    const a = await t.createAsset();
    const missing = newId('asset');
    const before = await listGroups(t);

    const create = await t.request('POST', '/api/v2/groups', {
      body: { name: 'ghosts', asset_ids: [a.id, missing] },
    });
    expect(create.status).toBe(400);
    expect(create.json.error).toBe('validation');
    expect(create.json.message).toContain(missing);
    expect(await listGroups(t)).toEqual(before);

    const group = await createGroup(t, { name: 'real', asset_ids: [a.id] });
    const patch = await t.request('PATCH', `/api/v2/groups/${group.id}`, {
      body: { name: 'renamed', asset_ids: [missing] },
    });
    expect(patch.status).toBe(400);
    expect((await t.request('GET', `/api/v2/groups/${group.id}`)).json.data).toEqual(group);

    for (const body of [
      { name: 'bad id', asset_ids: ['not-an-asset-id'] },
      { name: 'twice', asset_ids: [a.id, a.id] },
      { name: 'n'.repeat(121) },
      { name: 'extra', colour: 'red' },
    ]) {
      const res = await t.request('POST', '/api/v2/groups', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
    }
    const empty = await t.request('PATCH', `/api/v2/groups/${group.id}`, { body: {} });
    expect(empty.status).toBe(400);
  });

  it('drops a deleted asset from every group it was in', async () => {
    const t = hub();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const one = await createGroup(t, { name: 'one', asset_ids: [a.id, b.id] });
    const two = await createGroup(t, { name: 'two', asset_ids: [a.id] });

    expect((await t.request('DELETE', `/api/v2/assets/${a.id}`)).status).toBe(200);

    expect(((await t.request('GET', `/api/v2/groups/${one.id}`)).json.data as Group).asset_ids).toEqual([
      b.id,
    ]);
    expect(((await t.request('GET', `/api/v2/groups/${two.id}`)).json.data as Group).asset_ids).toEqual([]);
    const listed = (await listGroups(t)).data;
    expect(listed.flatMap((g) => g.asset_ids)).not.toContain(a.id);
  });
});

describe('groups seen through a key limited to some assets', () => {
  const hub = useTestHub();
  const ids = { a: '', b: '', c: '' };
  const groups: Record<'ab' | 'b' | 'a' | 'empty', Group> = {} as Record<'ab' | 'b' | 'a' | 'empty', Group>;
  let key: string;

  beforeAll(async () => {
    const t = hub();
    ids.a = (await t.createAsset({ name: 'a' })).id;
    ids.b = (await t.createAsset({ name: 'b' })).id;
    ids.c = (await t.createAsset({ name: 'c' })).id;
    groups.ab = await createGroup(t, { name: 'g-ab', asset_ids: [ids.a, ids.b] });
    groups.b = await createGroup(t, { name: 'g-b', asset_ids: [ids.b] });
    groups.a = await createGroup(t, { name: 'g-a', asset_ids: [ids.a] });
    groups.empty = await createGroup(t, { name: 'g-empty' });
    key = (await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [ids.a] })).raw_key;
  });

  it('lists only groups with a visible member, showing only the visible members', async () => {
    const t = hub();
    const { data, total } = await listGroups(t, key);
    expect(total).toBe(2);
    expect(data.map((g) => g.name).sort()).toEqual(['g-a', 'g-ab']);
    expect(data.find((g) => g.id === groups.ab.id)?.asset_ids).toEqual([ids.a]);
    expect(JSON.stringify(data)).not.toContain(ids.b);
  });

  it('gets a group with a visible member, without the hidden ones', async () => {
    const t = hub();
    const res = await t.request('GET', `/api/v2/groups/${groups.ab.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual({ ...groups.ab, asset_ids: [ids.a] });
  });

  it('gets 404 for groups with no visible member, as for a group that does not exist', async () => {
    const t = hub();
    for (const id of [groups.b.id, groups.empty.id, newId('group')]) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: 'x' }],
        ['DELETE', undefined],
      ] as const) {
        const res = await t.request(method, `/api/v2/groups/${id}`, { key, ...(body ? { body } : {}) });
        expect(res.status, `${method} ${id}`).toBe(404);
        expect(res.json.error).toBe('not_found');
      }
    }
    expect((await t.request('GET', `/api/v2/groups/${groups.b.id}`)).json.data).toEqual(groups.b);
    expect((await t.request('GET', `/api/v2/groups/${groups.empty.id}`)).json.data).toEqual(groups.empty);
  });

  it('cannot change or delete a group with members outside its list', async () => {
    const t = hub();
    for (const [method, body] of [
      ['PATCH', { name: 'mine now' }],
      ['PATCH', { asset_ids: [ids.a] }],
      ['DELETE', undefined],
    ] as const) {
      const res = await t.request(method, `/api/v2/groups/${groups.ab.id}`, {
        key,
        ...(body ? { body } : {}),
      });
      expect(res.status, method).toBe(403);
      expect(res.json.error).toBe('forbidden');
    }
    expect((await t.request('GET', `/api/v2/groups/${groups.ab.id}`)).json.data).toEqual(groups.ab);
  });

  it('changes a group whose members it all sees, but cannot add hidden assets to it', async () => {
    const t = hub();
    const renamed = await t.request('PATCH', `/api/v2/groups/${groups.a.id}`, {
      key,
      body: { name: 'g-a renamed' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.json.data).toMatchObject({ name: 'g-a renamed', asset_ids: [ids.a] });

    const widened = await t.request('PATCH', `/api/v2/groups/${groups.a.id}`, {
      key,
      body: { asset_ids: [ids.a, ids.c] },
    });
    expect(widened.status).toBe(400);
    const owner = (await t.request('GET', `/api/v2/groups/${groups.a.id}`)).json.data as Group;
    expect(owner.asset_ids).toEqual([ids.a]);
  });

  it('creates groups only from its own assets; a hidden asset reads like an unknown one', async () => {
    const t = hub();
    const ok = await t.request('POST', '/api/v2/groups', { key, body: { name: 'mine', asset_ids: [ids.a] } });
    expect(ok.status).toBe(201);

    const missing = newId('asset');
    const hidden = await t.request('POST', '/api/v2/groups', {
      key,
      body: { name: 'hidden', asset_ids: [ids.a, ids.c] },
    });
    const absent = await t.request('POST', '/api/v2/groups', {
      key,
      body: { name: 'absent', asset_ids: [ids.a, missing] },
    });
    expect(hidden.status).toBe(400);
    expect(absent.status).toBe(400);
    expect(hidden.json.message).toBe(String(absent.json.message).replace(missing, ids.c));

    const none = await t.request('POST', '/api/v2/groups', { key, body: { name: 'none' } });
    expect(none.status).toBe(400);
    const names = (await listGroups(t)).data.map((g) => g.name);
    expect(names).toContain('mine');
    expect(names).not.toContain('hidden');
    expect(names).not.toContain('none');
  });

  it('stops seeing a group once its visible member is deleted', async () => {
    const t = hub();
    expect((await t.request('DELETE', `/api/v2/assets/${ids.a}`)).status).toBe(200);
    expect(await listGroups(t, key)).toEqual({ data: [], total: 0 });
    expect((await t.request('GET', `/api/v2/groups/${groups.ab.id}`, { key })).status).toBe(404);
    expect(((await t.request('GET', `/api/v2/groups/${groups.ab.id}`)).json.data as Group).asset_ids).toEqual(
      [ids.b],
    );
  });
});
