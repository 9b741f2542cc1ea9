import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, type Asset } from '@svc/protocol';
import { databaseTargets, FleetSimulator, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

async function listAll(t: TestHub, query = '', key?: string): Promise<{ data: Asset[]; total: number }> {
  const res = await t.request('GET', `/api/v2/assets?per_page=500${query}`, key ? { key } : {});
  expect(res.status, res.text).toBe(200);
  return { data: res.json.data as Asset[], total: res.json.meta?.total ?? -1 };
}

describe('assets: create, read, update, delete', () => {
  const hub = useTestHub();

  it('creates a manual device with the documented defaults', async () => {
    const t = hub();
    const res = await t.request('POST', '/api/v2/assets', { body: { name: 'nas' } });
    expect(res.status).toBe(201);
    const asset = res.json.data as Asset;
    const now = t.clock.now().toISOString();
    expect(asset).toEqual({
      id: asset.id,
      name: 'nas',
      hostname: null,
      platform: 'other',
      status: 'unknown',
      source: 'manual',
      ip_addresses: [],
      mac_address: null,
      tags: [],
      description: null,
      last_seen_at: null,
      created_at: now,
      updated_at: now,
      agent: null,
      hub_host: false,
    });
    expect(asset.id).toMatch(/^ast_[0-9a-z]+$/);
    expect(res.json.request_id).toMatch(/^req_/);

    const fetched = await t.request('GET', `/api/v2/assets/${asset.id}`);
    expect(fetched.status).toBe(200);
    expect(fetched.json.data).toEqual(asset);
  });

  it('updates only the fields a PUT names and moves updated_at', async () => {
    const t = hub();
    const created = (
      await t.request('POST', '/api/v2/assets', {
        body: {
          name: 'router',
          hostname: 'gw.lan',
          platform: 'linux',
          ip_addresses: ['192.168.1.1'],
          tags: ['network'],
          description: 'edge',
        },
      })
    ).json.data as Asset;

    t.clock.advance(90_000);
    const res = await t.request('PUT', `/api/v2/assets/${created.id}`, {
      body: { hostname: 'gateway.lan', tags: ['network', 'core'] },
    });
    expect(res.status, res.text).toBe(200);
    const expected = {
      ...created,
      hostname: 'gateway.lan',
      tags: ['network', 'core'],
      updated_at: t.clock.now().toISOString(),
    };
    expect(res.json.data).toEqual(expected);
    expect(expected.updated_at).not.toBe(created.updated_at);
    expect((await t.request('GET', `/api/v2/assets/${created.id}`)).json.data).toEqual(expected);
  });

  it('deletes an asset; afterwards it is 404 everywhere', async () => {
    const t = hub();
    const asset = await t.createAsset({ name: 'to-delete' });
    const deleted = await t.request('DELETE', `/api/v2/assets/${asset.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.json.data).toMatchObject({ id: asset.id, name: 'to-delete' });

    for (const method of ['GET', 'PUT', 'DELETE']) {
      const res = await t.request(method, `/api/v2/assets/${asset.id}`, {
        ...(method === 'PUT' ? { body: { name: 'back' } } : {}),
      });
      expect(res.status, method).toBe(404);
      expect(res.json.error).toBe('not_found');
    }
    expect((await listAll(t)).data.map((a) => a.id)).not.toContain(asset.id);
  });

  it('stores MAC addresses lowercase and colon-separated, on create and update', async () => {
    const t = hub();
    const created = (
      await t.request('POST', '/api/v2/assets', { body: { name: 'mac', mac_address: 'AA-BB-CC-0D-0E-FF' } })
    ).json.data as Asset;
    expect(created.mac_address).toBe('aa:bb:cc:0d:0e:ff');
    expect(((await t.request('GET', `/api/v2/assets/${created.id}`)).json.data as Asset).mac_address).toBe(
      'aa:bb:cc:0d:0e:ff',
    );

    const updated = await t.request('PUT', `/api/v2/assets/${created.id}`, {
      body: { mac_address: '0A:1b:2C:3d:4E:5f' },
    });
    expect((updated.json.data as Asset).mac_address).toBe('0a:1b:2c:3d:4e:5f');
    expect(((await t.request('GET', `/api/v2/assets/${created.id}`)).json.data as Asset).mac_address).toBe(
      '0a:1b:2c:3d:4e:5f',
    );
  });
});

describe('assets: filters and paging', () => {
  const hub = useTestHub();
  const ids: Record<string, string[]> = {};

  beforeAll(async () => {
    const t = hub();
    const made: [string, string, string][] = [
      ['l1', 'linux', 'online'],
      ['l2', 'linux', 'online'],
      ['l3', 'linux', 'offline'],
      ['l4', 'linux', 'unknown'],
      ['w1', 'windows', 'online'],
      ['w2', 'windows', 'unknown'],
      ['o1', 'other', 'unknown'],
    ];
    for (const [name, platform, status] of made) {
      const asset = await t.createAsset({ name, platform });
      // Status is what agents report; no API sets it, so the test plays the agent in the database.
      await t.hub.database.db.updateTable('assets').set({ status }).where('id', '=', asset.id).execute();
      (ids[`${platform}/${status}`] ??= []).push(asset.id);
      (ids[platform] ??= []).push(asset.id);
      (ids[status] ??= []).push(asset.id);
    }
  });

  it.each([
    ['?platform=linux', 'linux', 4],
    ['?platform=windows', 'windows', 2],
    ['?status=online', 'online', 3],
    ['?status=unknown', 'unknown', 3],
    ['?status=online&platform=linux', 'linux/online', 2],
  ])('%s returns exactly the matching assets', async (query, group, count) => {
    const { data, total } = await listAll(hub(), `&${query.slice(1)}`);
    expect(total).toBe(count);
    expect(data.map((a) => a.id).sort()).toEqual([...(ids[group] ?? [])].sort());
  });

  it('returns nothing for a filter nothing matches', async () => {
    expect(await listAll(hub(), '&platform=macos')).toEqual({ data: [], total: 0 });
  });

  it('pages a filtered list with the filtered total', async () => {
    const t = hub();
    const seen: string[] = [];
    for (const page of [1, 2, 3]) {
      const res = await t.request('GET', `/api/v2/assets?platform=linux&per_page=3&page=${page}`);
      expect(res.json.meta).toEqual({ total: 4, page, per_page: 3 });
      const data = res.json.data as Asset[];
      expect(data).toHaveLength([3, 1, 0][page - 1]!);
      expect(data.every((a) => a.platform === 'linux')).toBe(true);
      seen.push(...data.map((a) => a.id));
    }
    expect(seen.sort()).toEqual([...(ids.linux ?? [])].sort());
  });

  it('refuses unknown filter values and page sizes', async () => {
    const t = hub();
    for (const query of ['status=sleeping', 'platform=solaris', 'per_page=0', 'per_page=501', 'page=0']) {
      const res = await t.request('GET', `/api/v2/assets?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe('validation');
    }
  });
});

describe('assets: validation', () => {
  const hub = useTestHub();
  let existing: Asset;

  beforeAll(async () => {
    const t = hub();
    existing = (
      await t.request('POST', '/api/v2/assets', {
        body: { name: 'keep-me', hostname: 'keep.lan', ip_addresses: ['10.1.1.1'], mac_address: null },
      })
    ).json.data as Asset;
  });

  it('accepts a name of exactly 120 characters', async () => {
    const t = hub();
    const res = await t.request('POST', '/api/v2/assets', { body: { name: 'n'.repeat(120) } });
    expect(res.status).toBe(201);
    expect((await t.request('DELETE', `/api/v2/assets/${(res.json.data as Asset).id}`)).status).toBe(200);
  });

  it.each([
    ['a name over 120 characters', { name: 'n'.repeat(121) }, 'body.name'],
    ['an empty name', { name: '' }, 'body.name'],
    ['no name', { hostname: 'x.lan' }, 'body.name'],
    ['a MAC with five octets', { name: 'x', mac_address: 'aa:bb:cc:dd:ee' }, 'body.mac_address'],
    ['a MAC with non-hex digits', { name: 'x', mac_address: 'zz:bb:cc:dd:ee:ff' }, 'body.mac_address'],
    ['an IPv4 out of range', { name: 'x', ip_addresses: ['300.1.1.1'] }, 'body.ip_addresses'],
    ['text as IP', { name: 'x', ip_addresses: ['not-an-ip'] }, 'body.ip_addresses'],
    ['an unknown platform', { name: 'x', platform: 'solaris' }, 'body.platform'],
    ['an unknown field', { name: 'x', colour: 'red' }, 'body.colour'],
    ['a number as name', { name: 42 }, 'body.name'],
  ])('refuses a create with %s and stores nothing', async (_label, body, field) => {
    const t = hub();
    const res = await t.request('POST', '/api/v2/assets', { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('validation');
    expect((res.json.details as { field: string }[] | undefined)?.[0]?.field).toContain(field);
    const { data, total } = await listAll(t);
    expect(total).toBe(1);
    expect(data).toEqual([existing]);
  });

  it.each([
    ['an empty body', {}],
    ['a name over 120 characters', { name: 'n'.repeat(121) }],
    ['a bad MAC', { mac_address: '00:11:22:33:44:5G' }],
    ['a bad IP', { ip_addresses: ['10.0.0.256'] }],
    ['a bad platform', { platform: 'amiga' }],
    ['an unknown field', { status: 'online' }],
    ['an unknown field next to a good one', { name: 'renamed', colour: 'red' }],
  ])('refuses a PUT with %s and changes nothing', async (_label, body) => {
    const t = hub();
    t.clock.advance(1000);
    const res = await t.request('PUT', `/api/v2/assets/${existing.id}`, { body });
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('validation');
    expect((await t.request('GET', `/api/v2/assets/${existing.id}`)).json.data).toEqual(existing);
    const audit = await t.request('GET', `/api/v2/audit/events?action=asset.updated`);
    expect(audit.json.meta?.total).toBe(0);
  });
});

describe('assets: search, group filter and sort (the console list)', () => {
  const hub = useTestHub();
  const byName: Record<string, string> = {};
  let groupId: string;

  beforeAll(async () => {
    const t = hub();
    const made: [string, Record<string, unknown>, string, string | null][] = [
      ['web-1', { hostname: 'web1.lan', tags: ['prod'] }, 'online', '2026-11-23T11:00:00.000Z'],
      ['web-2', { ip_addresses: ['10.0.0.12'] }, 'offline', '2026-11-23T09:00:00.000Z'],
      ['db-1', { tags: ['prod', 'db'] }, 'online', '2026-11-23T11:30:00.000Z'],
      ['printer', { description: 'web of things' }, 'unknown', null],
    ];
    for (const [name, fields, status, lastSeen] of made) {
      const asset = await t.createAsset({ name, ...fields });
      await t.hub.database.db
        .updateTable('assets')
        .set({ status, last_seen_at: lastSeen })
        .where('id', '=', asset.id)
        .execute();
      byName[name] = asset.id;
    }
    const group = await t.request('POST', '/api/v2/groups', {
      body: { name: 'web', asset_ids: [byName['web-1'], byName['web-2']] },
    });
    groupId = (group.json.data as { id: string }).id;
  });

  const names = async (query: string) => {
    const res = await hub().request('GET', `/api/v2/assets?${query}`);
    expect(res.status, res.text).toBe(200);
    return { names: (res.json.data as Asset[]).map((a) => a.name), total: res.json.meta?.total };
  };

  it.each([
    ['q=web', ['web-1', 'web-2']],
    ['q=WEB1.LAN', ['web-1']],
    ['q=10.0.0.12', ['web-2']],
    ['q=prod', ['db-1', 'web-1']],
    ['q=prod&status=online', ['db-1', 'web-1']],
    ['q=nothing-like-this', []],
  ])('?%s finds the assets whose name, hostname, address or tag holds the text', async (query, expected) => {
    expect((await names(query)).names).toEqual(expected);
  });

  it('lists the members of a group, with other filters and the total', async () => {
    expect(await names(`group=${groupId}`)).toEqual({ names: ['web-1', 'web-2'], total: 2 });
    expect(await names(`group=${groupId}&status=offline`)).toEqual({ names: ['web-2'], total: 1 });
    expect(await names(`group=${newId('group')}`)).toEqual({ names: [], total: 0 });
  });

  it('lists the assets named by ids= in one call, unknown ids matching nothing', async () => {
    const ids = [byName['web-2'], newId('asset'), byName['db-1']].join(',');
    expect(await names(`ids=${ids}`)).toEqual({ names: ['db-1', 'web-2'], total: 2 });
    expect(await names(`ids=${ids}&status=offline`)).toEqual({ names: ['web-2'], total: 1 });
  });

  it.each([
    ['not an id', 'ids=printer'],
    ['an empty item', `ids=${newId('asset')},`],
    ['a group id', `ids=${newId('group')}`],
    ['more than 100 ids', `ids=${Array.from({ length: 101 }, () => newId('asset')).join(',')}`],
  ])('refuses ids= with %s (400)', async (_why, query) => {
    const res = await hub().request('GET', `/api/v2/assets?${query}`);
    expect(res.status, res.text).toBe(400);
    expect(res.json.error).toBe('validation');
  });

  it.each([
    ['sort=name', ['db-1', 'printer', 'web-1', 'web-2']],
    ['sort=-name', ['web-2', 'web-1', 'printer', 'db-1']],
    ['sort=status', ['web-2', 'db-1', 'web-1', 'printer']],
    ['sort=-status', ['printer', 'db-1', 'web-1', 'web-2']],
    ['sort=-last_seen_at', ['db-1', 'web-1', 'web-2', 'printer']],
    ['sort=last_seen_at', ['web-2', 'web-1', 'db-1', 'printer']],
  ])('?%s orders the list (ties by name, never-seen last)', async (query, expected) => {
    expect((await names(query)).names).toEqual(expected);
  });

  it('refuses an unknown sort and an empty search', async () => {
    for (const query of ['sort=id', 'sort=-hostname', 'q=']) {
      const res = await hub().request('GET', `/api/v2/assets?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.json.error).toBe('validation');
    }
  });
});

describe('assets: keys limited to some assets', () => {
  const hub = useTestHub();
  let mine: Asset;
  let other: Asset;
  let restricted: string;

  beforeAll(async () => {
    const t = hub();
    mine = (await t.request('POST', '/api/v2/assets', { body: { name: 'mine' } })).json.data as Asset;
    other = (await t.request('POST', '/api/v2/assets', { body: { name: 'other' } })).json.data as Asset;
    restricted = (await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [mine.id] })).raw_key;
  });

  it('sees and changes its own asset', async () => {
    const t = hub();
    expect((await t.request('GET', `/api/v2/assets/${mine.id}`, { key: restricted })).status).toBe(200);
    const res = await t.request('PUT', `/api/v2/assets/${mine.id}`, {
      key: restricted,
      body: { description: 'mine to change' },
    });
    expect(res.status).toBe(200);
    mine = res.json.data as Asset;
  });

  it('gets the same 404 for an asset outside its list as for one that does not exist', async () => {
    const t = hub();
    const missing = newId('asset');
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { name: 'taken over' }],
      ['DELETE', undefined],
    ] as const) {
      const hidden = await t.request(method, `/api/v2/assets/${other.id}`, {
        key: restricted,
        ...(body ? { body } : {}),
      });
      const absent = await t.request(method, `/api/v2/assets/${missing}`, {
        key: restricted,
        ...(body ? { body } : {}),
      });
      expect(hidden.status, method).toBe(404);
      expect(hidden.json.error).toBe('not_found');
      expect(hidden.json.message).toBe(String(absent.json.message).replace(missing, other.id));
      expect(absent.status).toBe(404);
    }
    expect((await t.request('GET', `/api/v2/assets/${other.id}`)).json.data).toEqual(other);
  });

  it('lists and counts only its own assets', async () => {
    const t = hub();
    expect(await listAll(t, '', restricted)).toEqual({ data: [mine], total: 1 });
    expect(await listAll(t, '&platform=other', restricted)).toEqual({ data: [mine], total: 1 });
    expect(await listAll(t, `&ids=${mine.id},${other.id}`, restricted)).toEqual({ data: [mine], total: 1 });
    expect((await listAll(t)).total).toBe(2);
  });

  it('cannot create assets', async () => {
    const t = hub();
    const res = await t.request('POST', '/api/v2/assets', { key: restricted, body: { name: 'sneaky' } });
    expect(res.status).toBe(403);
    expect(res.json.error).toBe('forbidden');
    expect((await listAll(t)).data.map((a) => a.name)).not.toContain('sneaky');
  });
});

describe('assets: a listed page is never older than the last change', () => {
  const hub = useTestHub();
  const names = async (t: TestHub, key?: string) => (await listAll(t, '', key)).data.map((a) => a.name);

  it('shows renames, deletions and writes made by other parts of the hub at once', async () => {
    const t = hub();
    const a = await t.createAsset({ name: 'cache-a' });
    const b = await t.createAsset({ name: 'cache-b' });
    expect(await names(t)).toEqual(expect.arrayContaining(['cache-a', 'cache-b']));
    await t.request('PUT', `/api/v2/assets/${a.id}`, { body: { name: 'cache-a2' } });
    expect(await names(t)).toContain('cache-a2');
    // Presence writes status straight through its own query, as an agent's connection does.
    await t.hub.database.db.updateTable('assets').set({ status: 'online' }).where('id', '=', b.id).execute();
    expect((await listAll(t, '&status=online')).data.map((x) => x.id)).toEqual([b.id]);
    await t.request('DELETE', `/api/v2/assets/${b.id}`);
    expect(await names(t)).not.toContain('cache-b');
    // A write rolled back leaves the page as it was, and the page is still right afterwards.
    await t.hub.database.db
      .transaction()
      .execute(async (trx) => {
        await trx.updateTable('assets').set({ name: 'never' }).where('id', '=', a.id).execute();
        throw new Error('roll back');
      })
      .catch(() => undefined);
    expect(await names(t)).toContain('cache-a2');
    expect(await names(t)).not.toContain('never');
  });

  it('answers a page served again exactly as the first time, but for its own request id', async () => {
    const t = hub();
    await t.createAsset({
      name: 'cache "same" ünï',
      tags: ['a:b'],
      description: 'line\nbreak',
      ip_addresses: ['10.0.0.1'],
    });
    const answers = [];
    for (let i = 0; i < 3; i++) answers.push(await t.request('GET', '/api/v2/assets?per_page=7'));
    const [first, ...again] = answers;
    for (const res of again) {
      expect(res.headers['content-type']).toBe(first?.headers['content-type']);
      expect({ ...res.json, request_id: 'x' }).toEqual({ ...first?.json, request_id: 'x' });
      expect(res.json.request_id).toMatch(/^req_/);
      expect(res.json.request_id).not.toBe(first?.json.request_id);
    }
  });

  it('shows a write to every read sent at once after it, each key seeing only its own assets', async () => {
    const t = hub();
    const mine = await t.createAsset({ name: 'burst-mine' });
    const other = await t.createAsset({ name: 'burst-other' });
    const limited = await t.createKey({ role: 'viewer', scopes: ['assets:read'], allowed_assets: [mine.id] });
    expect(await names(t)).toEqual(expect.arrayContaining(['burst-mine', 'burst-other']));
    for (let round = 0; round < 3; round++) {
      await t.request('PUT', `/api/v2/assets/${other.id}`, { body: { name: `burst-other-${round}` } });
      const all = await Promise.all(Array.from({ length: 8 }, () => names(t)));
      const own = await Promise.all(Array.from({ length: 4 }, () => names(t, limited.raw_key)));
      for (const seen of all) {
        expect(seen).toContain(`burst-other-${round}`);
        expect(seen).not.toContain(`burst-other-${round - 1}`);
      }
      for (const seen of own) expect(seen).toEqual(['burst-mine']);
    }
  });

  it('never gives a key limited to some assets the page an unrestricted caller saw', async () => {
    const t = hub();
    const mine = await t.createAsset({ name: 'cache-mine' });
    await t.createAsset({ name: 'cache-other' });
    expect(await names(t)).toContain('cache-other');
    const limited = await t.createKey({ role: 'viewer', scopes: ['assets:read'], allowed_assets: [mine.id] });
    expect(await names(t, limited.raw_key)).toEqual(['cache-mine']);
  });
});

describe.each(databaseTargets())(
  'assets: a client reads its own writes in the list ($name)',
  ({ options }) => {
    const hub = useTestHub(options);
    const page = async (t: TestHub, n: number) => {
      const res = await t.request('GET', `/api/v2/assets?per_page=2&page=${n}&q=ryw-`);
      expect(res.status, res.text).toBe(200);
      return (res.json.data as Asset[]).map((a) => `${a.name}:${a.description ?? ''}:${a.mac_address ?? ''}`);
    };

    it('sees each PUT on the next GET, on its page only, while other callers keep reading', async () => {
      const t = hub();
      const made = [];
      for (const name of ['ryw-a', 'ryw-b', 'ryw-c', 'ryw-d']) made.push(await t.createAsset({ name }));
      const c = made[2]?.id ?? '';
      expect([await page(t, 1), await page(t, 2)]).toEqual([
        ['ryw-a::', 'ryw-b::'],
        ['ryw-c::', 'ryw-d::'],
      ]);
      expect(await page(t, 2)).toEqual(['ryw-c::', 'ryw-d::']); // served again, as kept
      for (let round = 0; round < 4; round++) {
        const readers = Array.from({ length: 6 }, (_, i) => page(t, 1 + (i % 2)));
        const res = await t.request('PUT', `/api/v2/assets/${c}`, {
          body: { description: `d${round}`, mac_address: `00:00:00:00:00:0${round}` },
        });
        expect(res.status, res.text).toBe(200);
        for (const seen of await Promise.all(readers)) expect(seen).toHaveLength(2);
        expect(await page(t, 2)).toEqual([`ryw-c:d${round}:00:00:00:00:00:0${round}`, 'ryw-d::']);
        expect(await page(t, 1)).toEqual(['ryw-a::', 'ryw-b::']);
      }
      // A rename moves the asset: the pages are read again in the new order.
      await t.request('PUT', `/api/v2/assets/${c}`, { body: { name: 'ryw-0', description: 'moved' } });
      expect(await page(t, 1)).toEqual(['ryw-0:moved:00:00:00:00:00:03', 'ryw-a::']);
      // A presence write made between two PUTs shows with the second one's change.
      await t.hub.database.db.updateTable('assets').set({ status: 'online' }).where('id', '=', c).execute();
      await t.request('PUT', `/api/v2/assets/${c}`, { body: { description: 'after presence' } });
      const online = await t.request('GET', '/api/v2/assets?per_page=2&page=1&q=ryw-&status=online');
      expect((online.json.data as Asset[]).map((a) => [a.id, a.status, a.description])).toEqual([
        [c, 'online', 'after presence'],
      ]);
      expect(await page(t, 1)).toEqual(['ryw-0:after presence:00:00:00:00:00:03', 'ryw-a::']);
    });
  },
);

describe('assets: agent.connected follows the agent channel', () => {
  let t: TestHub | null = null;
  let fleet: FleetSimulator | null = null;
  afterAll(async () => {
    fleet?.stop();
    await t?.close();
  });

  it('turns true when the agent connects and false when it goes, on a page read just before', async () => {
    t = await startTestHub({ listen: true });
    const hubUnderTest = t;
    const [identity] = await provisionAgents(t.hub, 1);
    if (!identity) throw new Error('no agent provisioned');
    const connected = async () => {
      const found = (await listAll(hubUnderTest)).data.find((a) => a.id === identity.assetId);
      return found?.agent?.connected;
    };
    expect(await connected()).toBe(false);
    fleet = new FleetSimulator({
      origin: `http://127.0.0.1:${t.servers?.httpPort ?? 0}`,
      identities: [identity],
      heartbeatIntervalMs: 60_000,
      backoff: { baseMs: 60_000, capMs: 60_000, recentCapMs: 60_000 },
    });
    await fleet.start();
    expect(t.hub.gateway.isConnected(identity.assetId)).toBe(true);
    expect(await connected()).toBe(true);
    t.hub.gateway.disconnect(identity.assetId, 'test drop');
    expect(await connected()).toBe(false);
  });
});
