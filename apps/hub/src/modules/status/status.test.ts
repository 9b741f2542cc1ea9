import { describe, expect, it } from 'vitest';
import type { AggregateStatus, AuditEvent, RestartResult } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

const ownOrigin = 'http://localhost:80';

describe.each(databaseTargets())('/status/aggregate and /api/settings/restart ($name)', ({ options }) => {
  const hub = useTestHub(options, 'per-test');

  async function assetWithStatus(status: 'online' | 'offline' | 'unknown', name?: string): Promise<string> {
    const t = hub();
    const asset = await t.createAsset(name ? { name } : {});
    await t.hub.database.db.updateTable('assets').set({ status }).where('id', '=', asset.id).execute();
    return asset.id;
  }

  async function group(name: string, assetIds: string[]): Promise<string> {
    const t = hub();
    const res = await t.request('POST', '/api/v2/groups', { body: { name, asset_ids: assetIds } });
    expect(res.status, res.text).toBe(201);
    return (res.json.data as { id: string }).id;
  }

  /** What a caller limited to `visible` (null: everything) should see, read straight from the tables. */
  async function truth(visible: string[] | null): Promise<Omit<AggregateStatus, 'generated_at'>> {
    const t = hub();
    const db = t.hub.database.db;
    const assets = (await db.selectFrom('assets').select(['id', 'status']).execute()).filter(
      (a) => visible === null || visible.includes(a.id),
    );
    const members = await db.selectFrom('group_members').select(['group_id', 'asset_id']).execute();
    const groups = await db.selectFrom('groups').select('id').execute();
    const seenGroups = groups.filter(
      (g) => visible === null || members.some((m) => m.group_id === g.id && visible.includes(m.asset_id)),
    );
    const count = (status: string) => assets.filter((a) => a.status === status).length;
    return {
      scope: visible === null ? 'all' : 'restricted',
      assets: {
        total: assets.length,
        online: count('online'),
        offline: count('offline'),
        unknown: count('unknown'),
      },
      groups: seenGroups.length,
    };
  }

  async function aggregate(options: { key?: string | null; headers?: Record<string, string> } = {}) {
    const t = hub();
    const res = await t.request('GET', '/status/aggregate', options);
    expect(res.status, res.text).toBe(200);
    return res.json.data as AggregateStatus;
  }

  function withoutTime(status: AggregateStatus): Omit<AggregateStatus, 'generated_at'> {
    const { generated_at: _ignored, ...rest } = status;
    return rest;
  }

  /** A fleet with every status, and groups inside, across and outside any one slice of it. */
  async function fleet() {
    const a = await assetWithStatus('online', 'a');
    const b = await assetWithStatus('offline', 'b');
    const c = await assetWithStatus('unknown', 'c');
    const d = await assetWithStatus('online', 'd');
    const e = await assetWithStatus('offline', 'e');
    await group('ab', [a, b]);
    await group('c-only', [c]);
    await group('de', [d, e]);
    await group('empty', []);
    return { a, b, c, d, e };
  }

  it('requires authentication', async () => {
    const t = hub();
    await fleet();
    const res = await t.request('GET', '/status/aggregate', { key: null });
    expect(res.status).toBe(401);
    expect(res.json.error).toBe('unauthorized');
    expect(res.text).not.toMatch(/"online"|"total"/);
    const forged = await t.request('GET', '/status/aggregate', { key: 'svc_aaaa_' + 'a'.repeat(52) });
    expect(forged.status).toBe(401);
  });

  it('shows the owner the whole fleet', async () => {
    const t = hub();
    await fleet();

    const byKey = await aggregate();
    expect(withoutTime(byKey)).toEqual(await truth(null));
    expect(byKey).toMatchObject({
      scope: 'all',
      assets: { total: 5, online: 2, offline: 2, unknown: 1 },
      groups: 4,
    });
    expect(byKey.generated_at).toBe(t.clock.now().toISOString());

    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
    const bySession = await aggregate({ key: null, headers: { cookie } });
    expect(withoutTime(bySession)).toEqual(await truth(null));
  });

  it("shows a restricted key only its own assets' counts and the groups with a member it may see", async () => {
    const t = hub();
    const { a, c, e } = await fleet();
    const key = await t.createKey({ role: 'viewer', scopes: ['assets:read'], allowed_assets: [a, c, e] });

    const seen = await aggregate({ key: key.raw_key });

    expect(seen.scope).toBe('restricted');
    expect(withoutTime(seen)).toEqual(await truth([a, c, e]));
    // a online, c unknown, e offline; groups ab, c-only and de each have one of them; 'empty' has none
    expect(seen.assets).toEqual({ total: 3, online: 1, offline: 1, unknown: 1 });
    expect(seen.groups).toBe(3);
  });

  it('never serves one caller the cached view of another within the cache window', async () => {
    const t = hub();
    const { a, b, c, d, e } = await fleet();
    const keyA = await t.createKey({ role: 'viewer', scopes: ['*'], allowed_assets: [a] });
    const keyB = await t.createKey({ role: 'viewer', scopes: ['*'], allowed_assets: [b, c, d] });
    const keyAll = await t.createKey({ role: 'admin', scopes: ['*'] });
    const views: [string, string, string[] | null][] = [
      ['A', keyA.raw_key, [a]],
      ['B', keyB.raw_key, [b, c, d]],
      ['A again', keyA.raw_key, [a]],
      ['owner', t.ownerKey, null],
      ['B again', keyB.raw_key, [b, c, d]],
      ['unrestricted admin', keyAll.raw_key, null],
      ['A a third time', keyA.raw_key, [a]],
    ];

    for (const [label, key, visible] of views) {
      const seen = await aggregate({ key });
      expect(withoutTime(seen), label).toEqual(await truth(visible));
    }
    // the views really differ, so a mix-up would have shown
    expect(await truth([a])).not.toEqual(await truth([b, c, d]));
    expect((await truth([e])).assets.total).toBe(1);

    // two keys with the same allowed set (in another order) see the same, correct view
    const sameAsB = await t.createKey({ role: 'operator', scopes: ['*'], allowed_assets: [d, b, c] });
    expect(withoutTime(await aggregate({ key: sameAsB.raw_key }))).toEqual(await truth([b, c, d]));
  });

  it('answers from a 5-second cache what no event announced, then shows it; an announced change at once', async () => {
    const t = hub();
    const { a } = await fleet();
    const restricted = await t.createKey({ role: 'viewer', scopes: ['*'], allowed_assets: [a] });
    const created = await aggregate();
    await assetWithStatus('online', 'new-one');
    // asset.created emptied the cache: the new asset counts at once.
    expect((await aggregate()).assets.total).toBe(created.assets.total + 1);
    const before = await aggregate();
    const beforeRestricted = await aggregate({ key: restricted.raw_key });

    // A write no event announces (straight to the table) waits for the cache window.
    await t.hub.database.db.updateTable('assets').set({ status: 'offline' }).where('id', '=', a).execute();
    t.clock.advance(4_000);
    expect(await aggregate()).toEqual(before);
    expect(await aggregate({ key: restricted.raw_key })).toEqual(beforeRestricted);

    t.clock.advance(1_000);
    const after = await aggregate();
    expect(after.assets.total).toBe(before.assets.total);
    expect(withoutTime(after)).toEqual(await truth(null));
    expect(after.generated_at).toBe(t.clock.now().toISOString());
    const afterRestricted = await aggregate({ key: restricted.raw_key });
    expect(afterRestricted.assets).toEqual({ total: 1, online: 0, offline: 1, unknown: 0 });
  });

  describe('POST /api/settings/restart', () => {
    async function restartEvents(): Promise<AuditEvent[]> {
      const t = hub();
      const res = await t.request('GET', '/api/v2/audit/events?action=hub.restart_requested');
      expect(res.status).toBe(200);
      return res.json.data as AuditEvent[];
    }

    it('is for admins only', async () => {
      const t = hub();
      const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
      const viewer = await t.createKey({ role: 'viewer', scopes: ['*'] });
      const refused: [string | null, number, string][] = [
        [null, 401, 'unauthorized'],
        [operator.raw_key, 403, 'admin_required'],
        [viewer.raw_key, 403, 'read_only_role'],
      ];
      for (const [key, status, error] of refused) {
        const res = await t.request('POST', '/api/settings/restart', { key });
        expect(res.status, String(key)).toBe(status);
        expect(res.json.error).toBe(error);
      }
      expect(await restartEvents()).toHaveLength(0);
    });

    it('answers 202 restarting:false without a restart hook, and audits the request', async () => {
      const t = hub();
      const admin = await t.createKey({ role: 'admin', scopes: ['*'] });

      const res = await t.request('POST', '/api/settings/restart', { key: admin.raw_key });

      expect(res.status, res.text).toBe(202);
      const result = res.json.data as RestartResult;
      expect(result.restarting).toBe(false);
      expect(result.message).toEqual(expect.any(String));
      expect(result.message.length).toBeGreaterThan(0);

      const events = await restartEvents();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({
        actor_type: 'api_key',
        actor_id: admin.id,
        detail: { supported: false },
      });
      // the hub is still up and answering
      expect((await t.request('GET', '/api/v2/hub/status')).status).toBe(200);
    });

    it('from the console, needs the hub’s own Origin', async () => {
      const t = hub();
      const login = await t.request('POST', '/api/auth/login', {
        key: null,
        body: { username: 'owner', password: t.ownerPassword },
      });
      const cookie = String(login.headers['set-cookie']).split(';')[0] ?? '';
      const cross = await t.request('POST', '/api/settings/restart', {
        key: null,
        headers: { cookie, origin: 'https://evil.example' },
      });
      expect(cross.status).toBe(403);
      expect(await restartEvents()).toHaveLength(0);

      const own = await t.request('POST', '/api/settings/restart', {
        key: null,
        headers: { cookie, origin: ownOrigin },
      });
      expect(own.status, own.text).toBe(202);
      const events = await restartEvents();
      expect(events).toHaveLength(1);
      expect(events[0]).toMatchObject({ actor_type: 'session' });
    });
  });
});
