/**
 * Storage through the public API, on every database target: SQLite always, and the real PostgreSQL when
 * SVC_TEST_DATABASE_URL is set. The same expectations on both is what "one repository code path" promises.
 */
import { describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import type { Asset, AuditEvent, Group, SearchHit, User } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { openDatabase } from './database.js';
import { migrations } from './migrations.js';

const byNameThenId = (a: { name: string; id: string }, b: { name: string; id: string }) =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;

describe.each(databaseTargets())('storage on $name', ({ options }) => {
  const hub = useTestHub(options);

  async function allAssets(perPage = 500): Promise<Asset[]> {
    const t = hub();
    const out: Asset[] = [];
    for (let page = 1; page < 100; page++) {
      const res = await t.request('GET', `/api/v2/assets?per_page=${perPage}&page=${page}`);
      expect(res.status).toBe(200);
      const data = res.json.data as Asset[];
      out.push(...data);
      if (data.length < perPage) return out;
    }
    throw new Error('too many pages');
  }

  async function searchAssets(q: string): Promise<{ names: string[]; total: number }> {
    const t = hub();
    const res = await t.request('GET', `/api/v2/search?type=asset&per_page=500&q=${encodeURIComponent(q)}`);
    expect(res.status, res.text).toBe(200);
    return {
      names: (res.json.data as SearchHit[]).map((h) => h.name).sort(),
      total: res.json.meta?.total ?? -1,
    };
  }

  describe('migrations', () => {
    it('create every table on a fresh database and record each migration once', async () => {
      const t = hub();
      const db = t.hub.database.db;
      for (const table of [
        'users',
        'api_keys',
        'assets',
        'groups',
        'group_members',
        'audit_events',
      ] as const) {
        // Selecting from a table that does not exist throws on both dialects.
        await expect(
          db
            .selectFrom(table)
            .select(sql`1`.as('one'))
            .execute(),
        ).resolves.toBeDefined();
      }
      const applied = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
        db,
      );
      expect(applied.rows.map((r) => r.name)).toEqual(Object.keys(migrations).sort());
    });

    it('are idempotent: opening the same database again keeps the data and applies nothing twice', async () => {
      const t = hub();
      const asset = await t.createAsset({ name: 'survives-reopen' });
      let pgSchema: string | undefined;
      if (t.hub.database.dialect === 'postgres') {
        const current = await sql<{ s: string }>`select current_schema() as s`.execute(t.hub.database.db);
        pgSchema = current.rows[0]?.s;
        expect(pgSchema).toMatch(/^t_/);
      }

      for (let i = 0; i < 2; i++) {
        const again = await openDatabase({
          databaseUrl: t.config.databaseUrl,
          dataDir: t.dataDir,
          ...(pgSchema ? { pgSchema } : {}),
        });
        try {
          const applied = await sql<{ name: string }>`select name from kysely_migration`.execute(again.db);
          expect(applied.rows).toHaveLength(Object.keys(migrations).length);
          const row = await again.db
            .selectFrom('assets')
            .select('name')
            .where('id', '=', asset.id)
            .executeTakeFirst();
          expect(row?.name).toBe('survives-reopen');
        } finally {
          await again.close();
        }
      }
      expect((await t.request('GET', `/api/v2/assets/${asset.id}`)).status).toBe(200);
    });
  });

  describe('round-trips through the API', () => {
    it('an asset with every field, including JSON lists, and its nullable fields cleared again', async () => {
      const t = hub();
      const input = {
        name: 'Round trip — ünïcode "quoted"',
        hostname: 'rt-01.example.lan',
        platform: 'freebsd',
        ip_addresses: ['10.0.0.5', 'fd00::5', '192.168.1.77'],
        mac_address: 'AA-BB-CC-0D-0E-0F',
        tags: ['zeta', 'rack:1', 'alpha', 'zeta'],
        description: 'line one\nline "two" \\ back',
      };
      const created = await t.request('POST', '/api/v2/assets', { body: input });
      expect(created.status, created.text).toBe(201);
      const asset = created.json.data as Asset;

      const fetched = await t.request('GET', `/api/v2/assets/${asset.id}`);
      expect(fetched.json.data).toEqual(asset);
      expect(fetched.json.data).toMatchObject({
        name: input.name,
        hostname: input.hostname,
        platform: 'freebsd',
        ip_addresses: input.ip_addresses,
        mac_address: 'aa:bb:cc:0d:0e:0f',
        tags: ['zeta', 'rack:1', 'alpha'],
        description: input.description,
        status: 'unknown',
        source: 'manual',
        last_seen_at: null,
        agent: null,
      });

      const cleared = await t.request('PUT', `/api/v2/assets/${asset.id}`, {
        body: { hostname: null, mac_address: null, description: null, tags: [], ip_addresses: [] },
      });
      expect(cleared.status, cleared.text).toBe(200);
      const after = (await t.request('GET', `/api/v2/assets/${asset.id}`)).json.data as Asset;
      expect(after).toEqual(cleared.json.data);
      expect(after).toMatchObject({
        name: input.name,
        hostname: null,
        mac_address: null,
        description: null,
        tags: [],
        ip_addresses: [],
        platform: 'freebsd',
      });
    });

    it('a group with its members and description', async () => {
      const t = hub();
      const a = await t.createAsset();
      const b = await t.createAsset();
      await t.createAsset();
      const created = await t.request('POST', '/api/v2/groups', {
        body: { name: 'round-trip group', description: 'ünïcode\ntext', asset_ids: [b.id, a.id] },
      });
      expect(created.status, created.text).toBe(201);
      const group = created.json.data as Group;

      const fetched = (await t.request('GET', `/api/v2/groups/${group.id}`)).json.data as Group;
      expect(fetched).toEqual(group);
      expect(fetched.asset_ids).toEqual([a.id, b.id].sort());
      expect(fetched.description).toBe('ünïcode\ntext');
      const listed = (await t.request('GET', '/api/v2/groups?per_page=500')).json.data as Group[];
      expect(listed.find((g) => g.id === group.id)).toEqual(group);
    });

    it('an API key with scopes, allowed assets and expiry', async () => {
      const t = hub();
      const asset = await t.createAsset();
      const created = await t.createKey({
        name: 'round-trip key',
        role: 'operator',
        scopes: ['assets:read', 'groups:*'],
        allowed_assets: [asset.id],
        expires_at: '2027-06-30T08:15:00.000Z',
      });
      const fetched = await t.request('GET', `/api/v2/keys/${created.id}`);
      expect(fetched.status).toBe(200);
      const { raw_key: _raw, ...stored } = created;
      expect(fetched.json.data).toEqual(stored);
      expect(fetched.json.data).toMatchObject({
        name: 'round-trip key',
        role: 'operator',
        scopes: ['assets:read', 'groups:*'],
        allowed_assets: [asset.id],
        expires_at: '2027-06-30T08:15:00.000Z',
        last_used_at: null,
      });
      const whoami = await t.request('GET', '/api/v2/whoami', { key: created.raw_key });
      expect(whoami.json.data).toMatchObject({ key_id: created.id, allowed_assets: [asset.id] });
    });

    it('a user', async () => {
      const t = hub();
      const created = await t.request('POST', '/api/auth/users', {
        body: { username: 'Round.Trip', password: 'correct horse battery', role: 'operator' },
      });
      expect(created.status, created.text).toBe(201);
      const user = created.json.data as User;
      expect(user).toMatchObject({ username: 'round.trip', role: 'operator' });
      const listed = (await t.request('GET', '/api/auth/users?per_page=500')).json.data as User[];
      expect(listed.find((u) => u.id === user.id)).toEqual(user);
      expect(JSON.stringify(listed)).not.toContain('correct horse battery');
    });

    it('audit events with their JSON detail', async () => {
      const t = hub();
      const asset = await t.createAsset({ name: 'audited ünïcode "name"' });
      const res = await t.request('GET', `/api/v2/audit/events?target_id=${asset.id}`);
      expect(res.status).toBe(200);
      const events = res.json.data as AuditEvent[];
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        action: 'asset.created',
        actor_type: 'api_key',
        target_type: 'asset',
        target_id: asset.id,
        asset_id: asset.id,
        ip: '127.0.0.1',
        detail: { name: 'audited ünïcode "name"' },
      });
      expect(events[0]?.ts).toBe(t.clock.now().toISOString());
    });
  });

  describe('ordering and paging', () => {
    it('orders assets by name, then by id when names tie, the same on every read', async () => {
      const t = hub();
      const names = ['ord-delta', 'ord-alpha', 'ord-charlie', 'ord-alpha', 'ord-bravo', 'ord-alpha'];
      const created = [];
      for (const name of names) created.push(await t.createAsset({ name }));

      const first = (await allAssets()).filter((a) => a.name.startsWith('ord-'));
      const expected = [...created].sort(byNameThenId).map((a) => a.id);
      expect(first.map((a) => a.id)).toEqual(expected);
      const ties = first.filter((a) => a.name === 'ord-alpha').map((a) => a.id);
      expect(ties).toHaveLength(3);
      expect(ties).toEqual([...ties].sort());

      const second = (await allAssets(2)).filter((a) => a.name.startsWith('ord-'));
      expect(second.map((a) => a.id)).toEqual(expected);
    });

    it('walks pages without overlap or gaps, with the right total', async () => {
      const t = hub();
      for (let i = 0; i < 23; i++) await t.createAsset({ name: `page-${String(i % 4)}` });
      const inDb = await t.hub.database.db.selectFrom('assets').select('id').execute();
      expect(inDb.length).toBeGreaterThanOrEqual(23);

      const seen: Asset[] = [];
      const pages = Math.ceil(inDb.length / 5);
      for (let page = 1; page <= pages + 1; page++) {
        const res = await t.request('GET', `/api/v2/assets?per_page=5&page=${page}`);
        expect(res.status).toBe(200);
        expect(res.json.meta).toEqual({ total: inDb.length, page, per_page: 5 });
        const data = res.json.data as Asset[];
        const expectedSize = page < pages ? 5 : page === pages ? inDb.length - 5 * (pages - 1) : 0;
        expect(data).toHaveLength(expectedSize);
        seen.push(...data);
      }
      const ids = seen.map((a) => a.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(inDb.map((r) => r.id).sort());
      // Compared on names every collation orders alike (PostgreSQL's locale may order mixed case differently).
      const paged = seen.filter((a) => a.name.startsWith('page-'));
      expect(paged).toHaveLength(23);
      expect(paged.map((a) => a.id)).toEqual([...paged].sort(byNameThenId).map((a) => a.id));
    });
  });

  it('deleting an asset removes its group memberships', async () => {
    const t = hub();
    const a = await t.createAsset();
    const b = await t.createAsset();
    const group = (
      await t.request('POST', '/api/v2/groups', { body: { name: 'membership', asset_ids: [a.id, b.id] } })
    ).json.data as Group;

    expect((await t.request('DELETE', `/api/v2/assets/${a.id}`)).status).toBe(200);

    const rows = await t.hub.database.db
      .selectFrom('group_members')
      .selectAll()
      .where('asset_id', '=', a.id)
      .execute();
    expect(rows).toEqual([]);
    const fetched = (await t.request('GET', `/api/v2/groups/${group.id}`)).json.data as Group;
    expect(fetched.asset_ids).toEqual([b.id]);
  });

  describe('text search', () => {
    it("treats '%', '_' and '\\' literally", async () => {
      const t = hub();
      for (const name of [
        'esc 100% ready',
        'esc 1000 ready',
        'esc a_b',
        'esc axb',
        'esc back\\slash',
        'esc backslash',
        'esc back\\\\double',
      ]) {
        await t.createAsset({ name });
      }

      expect(await searchAssets('0% r')).toEqual({ names: ['esc 100% ready'], total: 1 });
      expect((await searchAssets('%')).names).toEqual(['esc 100% ready']);
      expect(await searchAssets('a_b')).toEqual({ names: ['esc a_b'], total: 1 });
      expect((await searchAssets('_')).names).toEqual(['esc a_b']);
      expect(await searchAssets('k\\s')).toEqual({ names: ['esc back\\slash'], total: 1 });
      expect(await searchAssets('\\\\')).toEqual({ names: ['esc back\\\\double'], total: 1 });
      expect((await searchAssets('\\')).names).toEqual(['esc back\\\\double', 'esc back\\slash']);
    });

    it('is case-insensitive on name, hostname and tags, including non-ASCII letters', async () => {
      const t = hub();
      await t.createAsset({ name: 'CaseMiXed-Box', hostname: 'Web01.LAN', tags: ['Prod-Rack'] });
      await t.createAsset({ name: 'ÄRGER-Österreich' });

      expect((await searchAssets('casemixed')).names).toEqual(['CaseMiXed-Box']);
      expect((await searchAssets('CASEMIXED')).names).toEqual(['CaseMiXed-Box']);
      expect((await searchAssets('web01.lan')).names).toEqual(['CaseMiXed-Box']);
      expect((await searchAssets('prod-RACK')).names).toEqual(['CaseMiXed-Box']);
      // PostgreSQL folds non-ASCII letters only when its locale can (not under LC_CTYPE=C); SQLite always does.
      const folds = await sql<{ l: string }>`select lower('Ä') as l`.execute(t.hub.database.db);
      if (t.hub.database.dialect === 'sqlite' || folds.rows[0]?.l === 'ä') {
        expect((await searchAssets('ärger-öst')).names).toEqual(['ÄRGER-Österreich']);
        expect((await searchAssets('ÄrGeR')).names).toEqual(['ÄRGER-Österreich']);
      }
      expect((await searchAssets('rGeR-')).names).toEqual(['ÄRGER-Österreich']);
    });
  });
});
