import { beforeAll, describe, expect, it } from 'vitest';
import type { AuditEvent } from '@svc/protocol';
import type { InjectResult, TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

async function events(
  t: TestHub,
  query = '',
  key?: string,
): Promise<{ status: number; data: AuditEvent[]; total: number; error?: string }> {
  const res = await t.request('GET', `/api/v2/audit/events?per_page=500${query}`, key ? { key } : {});
  return {
    status: res.status,
    data: (res.json.data as AuditEvent[] | undefined) ?? [],
    total: res.json.meta?.total ?? -1,
    ...(res.json.error ? { error: res.json.error } : {}),
  };
}

function idOf(res: InjectResult): string {
  return (res.json.data as { id: string }).id;
}

describe('audit: one event per mutation', () => {
  const hub = useTestHub();

  it('records the caller, the request and the target of every mutation', async () => {
    const t = hub();
    const caller = await t.createKey({ name: 'auditor', role: 'admin', scopes: ['*'] });
    const key = caller.raw_key;
    const expected: {
      res: InjectResult;
      action: string;
      target: string;
      targetType: string;
      asset: boolean;
    }[] = [];
    const call = async (
      method: string,
      url: string,
      body: unknown,
      action: string,
      targetType: string,
      target?: string,
      asset = false,
    ) => {
      const res = await t.request(method, url, { key, ...(body !== undefined ? { body } : {}) });
      expect(res.status, `${method} ${url}: ${res.text}`).toBeLessThan(300);
      expected.push({ res, action, target: target ?? idOf(res), targetType, asset });
      return res;
    };

    const asset = idOf(
      await call('POST', '/api/v2/assets', { name: 'audited' }, 'asset.created', 'asset', undefined, true),
    );
    await call(
      'PUT',
      `/api/v2/assets/${asset}`,
      { hostname: 'a.lan' },
      'asset.updated',
      'asset',
      asset,
      true,
    );
    const group = idOf(
      await call('POST', '/api/v2/groups', { name: 'g', asset_ids: [asset] }, 'group.created', 'group'),
    );
    await call('PATCH', `/api/v2/groups/${group}`, { name: 'g2' }, 'group.updated', 'group', group);
    await call('DELETE', `/api/v2/groups/${group}`, undefined, 'group.deleted', 'group', group);
    const newKey = idOf(
      await call(
        'POST',
        '/api/v2/keys',
        { name: 'k', role: 'viewer', scopes: ['assets:read'] },
        'api_key.created',
        'api_key',
      ),
    );
    await call('PATCH', `/api/v2/keys/${newKey}`, { name: 'k2' }, 'api_key.updated', 'api_key', newKey);
    await call('DELETE', `/api/v2/keys/${newKey}`, undefined, 'api_key.deleted', 'api_key', newKey);
    const user = idOf(
      await call(
        'POST',
        '/api/auth/users',
        { username: 'alice', password: 'long enough pw', role: 'viewer' },
        'user.created',
        'user',
      ),
    );
    await call('PATCH', `/api/auth/users/${user}`, { role: 'operator' }, 'user.updated', 'user', user);
    await call(
      'PATCH',
      `/api/auth/users/${user}`,
      { password: 'another long pw' },
      'user.password_reset',
      'user',
      user,
    );
    await call('DELETE', `/api/v2/assets/${asset}`, undefined, 'asset.deleted', 'asset', asset, true);

    const all = await events(t);
    for (const { res, action, target, targetType, asset: aboutAsset } of expected) {
      const requestId = res.json.request_id as string;
      expect(requestId).toMatch(/^req_/);
      const matching = all.data.filter((e) => e.request_id === requestId);
      expect(matching, action).toHaveLength(1);
      expect(matching[0]).toMatchObject({
        action,
        actor_type: 'api_key',
        actor_id: caller.id,
        target_type: targetType,
        target_id: target,
        asset_id: aboutAsset ? target : null,
        ip: '127.0.0.1',
      });
    }
    expect(all.data.filter((e) => e.actor_id === caller.id)).toHaveLength(expected.length);
    expect(JSON.stringify(all.data)).not.toContain('long enough pw');
    expect(JSON.stringify(all.data)).not.toContain('another long pw');
  });

  it('records nothing for a refused mutation or a read', async () => {
    const t = hub();
    const asset = await t.createAsset();
    const before = (await events(t)).total;
    const refused = [
      await t.request('PUT', `/api/v2/assets/${asset.id}`, { body: {} }),
      await t.request('POST', '/api/v2/assets', { body: { name: '' } }),
      await t.request('DELETE', '/api/v2/groups/grp_0000000000aaaaaaaaaaaaaaaa'),
      await t.request('GET', `/api/v2/assets/${asset.id}`),
    ];
    expect(refused.map((r) => r.status)).toEqual([400, 400, 404, 200]);
    const after = await events(t);
    expect(after.total).toBe(before);
    const requestIds = new Set(refused.map((r) => r.json.request_id));
    expect(after.data.filter((e) => requestIds.has(e.request_id ?? ''))).toEqual([]);
  });
});

describe('audit: reading the trail', () => {
  const hub = useTestHub();
  const start = new Date('2026-11-23T12:00:00.000Z').getTime();
  const at = (minutes: number) => new Date(start + minutes * 60_000).toISOString();
  let one: { id: string; raw_key: string };
  let two: { id: string; raw_key: string };
  let assetA: string;
  let assetB: string;

  beforeAll(async () => {
    const t = hub();
    one = await t.createKey({ name: 'one', role: 'admin', scopes: ['*'] });
    two = await t.createKey({ name: 'two', role: 'admin', scopes: ['*'] });
    t.clock.set(new Date(at(10)));
    assetA = idOf(await t.request('POST', '/api/v2/assets', { key: one.raw_key, body: { name: 'a' } }));
    t.clock.set(new Date(at(60)));
    assetB = idOf(await t.request('POST', '/api/v2/assets', { key: two.raw_key, body: { name: 'b' } }));
    t.clock.set(new Date(at(120)));
    await t.request('PUT', `/api/v2/assets/${assetA}`, { key: one.raw_key, body: { name: 'a2' } });
    t.clock.set(new Date(at(180)));
    await t.request('POST', '/api/v2/groups', { key: two.raw_key, body: { name: 'g', asset_ids: [assetA] } });
    t.clock.set(new Date(at(240)));
    await t.request('PUT', `/api/v2/assets/${assetB}`, { key: two.raw_key, body: { name: 'b2' } });
  });

  it('lists newest first', async () => {
    const { data, total } = await events(hub());
    expect(total).toBe(data.length);
    expect(data[0]).toMatchObject({ action: 'asset.updated', target_id: assetB, ts: at(240) });
    const ts = data.map((e) => e.ts);
    expect(ts).toEqual([...ts].sort().reverse());
    const ids = data.map((e) => e.id);
    expect(ids).toEqual([...ids].sort().reverse());
  });

  it.each([
    ['action', () => 'action=asset.created', () => ['asset.created@' + assetB, 'asset.created@' + assetA]],
    ['actor_id', () => `actor_id=${one.id}`, () => ['asset.updated@' + assetA, 'asset.created@' + assetA]],
    ['target_id', () => `target_id=${assetB}`, () => ['asset.updated@' + assetB, 'asset.created@' + assetB]],
    ['asset_id', () => `asset_id=${assetA}`, () => ['asset.updated@' + assetA, 'asset.created@' + assetA]],
    [
      'action and actor_id together',
      () => `action=asset.created&actor_id=${two.id}`,
      () => ['asset.created@' + assetB],
    ],
    [
      'since and until',
      () => `since=${at(30)}&until=${at(150)}`,
      () => ['asset.updated@' + assetA, 'asset.created@' + assetB],
    ],
  ])('filters by %s', async (_label, query, expected) => {
    const { status, data, total } = await events(hub(), `&${query()}`);
    expect(status).toBe(200);
    expect(data.map((e) => `${e.action}@${e.target_id ?? ''}`)).toEqual(expected());
    expect(total).toBe(expected().length);
  });

  it('filters by time in any offset, comparing instants', async () => {
    const t = hub();
    // 16:30+02:00 is 14:30Z: after A's update (14:00Z), before the group (15:00Z). 07:30-05:00 is 12:30Z.
    const since = encodeURIComponent('2026-11-23T16:30:00+02:00');
    const { data } = await events(t, `&since=${since}`);
    expect(data.map((e) => e.ts)).toEqual([at(240), at(180)]);
    const until = encodeURIComponent('2026-11-23T07:30:00-05:00');
    const before = await events(t, `&until=${until}&action=asset.created`);
    expect(before.data.map((e) => e.target_id)).toEqual([assetA]);
  });

  it('refuses a since that is not a timestamp', async () => {
    const res = await events(hub(), '&since=yesterday');
    expect(res.status).toBe(400);
    expect(res.error).toBe('validation');
  });

  it('pages without overlap, in the same order as the full list', async () => {
    const t = hub();
    const full = await events(t);
    const seen: AuditEvent[] = [];
    for (let page = 1; page <= Math.ceil(full.total / 2) + 1; page++) {
      const res = await t.request('GET', `/api/v2/audit/events?per_page=2&page=${page}`);
      expect(res.json.meta).toEqual({ total: full.total, page, per_page: 2 });
      seen.push(...(res.json.data as AuditEvent[]));
    }
    expect(seen).toEqual(full.data);
  });

  it('shows a key limited to some assets only the events about them', async () => {
    const t = hub();
    const limited = await t.createKey({ role: 'viewer', scopes: ['audit:read'], allowed_assets: [assetA] });
    const all = await events(t);
    const mine = await events(t, '', limited.raw_key);
    expect(mine.status).toBe(200);
    expect(mine.data.length).toBeGreaterThan(0);
    expect(mine.data.every((e) => e.asset_id === assetA)).toBe(true);
    expect(mine.data).toEqual(all.data.filter((e) => e.asset_id === assetA));
    expect(mine.total).toBe(mine.data.length);
    expect(await events(t, `&asset_id=${assetB}`, limited.raw_key)).toMatchObject({ data: [], total: 0 });
    expect(await events(t, `&target_id=${assetB}`, limited.raw_key)).toMatchObject({ data: [], total: 0 });
    expect(await events(t, `&actor_id=${two.id}`, limited.raw_key)).toMatchObject({ data: [], total: 0 });
  });

  it('lets a viewer with audit:read read the trail, and refuses a key without it', async () => {
    const t = hub();
    const viewer = await t.createKey({ role: 'viewer', scopes: ['audit:read'] });
    const owner = await events(t);
    const seen = await events(t, '', viewer.raw_key);
    expect(seen.status).toBe(200);
    expect(seen.total).toBe(owner.total);

    const without = await t.createKey({ role: 'admin', scopes: ['assets:read', 'groups:*'] });
    const refused = await events(t, '', without.raw_key);
    expect(refused.status).toBe(403);
    expect(refused.error).toBe('insufficient_scope');
    expect(refused.data).toEqual([]);
  });
});
