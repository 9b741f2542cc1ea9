/**
 * Saved filters of the assets list over REST (decision 0096), on SQLite and, with SVC_TEST_DATABASE_URL,
 * PostgreSQL: each owner's own (viewers too), others get 404; bad input 400 naming the field; limits 409.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { savedFilterLimits, type SavedFilter } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

const base = '/api/v2/asset-filters';

describe.each(databaseTargets())('saved asset filters on $name', ({ options }) => {
  const hub = useTestHub(options);
  const keys = { alice: '', bob: '', admin: '', viewer: '', noScope: '' };

  beforeAll(async () => {
    const t = hub();
    keys.alice = (await t.createKey({ role: 'operator', scopes: ['assets:read'] })).raw_key;
    keys.bob = (await t.createKey({ role: 'operator', scopes: ['*'] })).raw_key;
    keys.admin = (await t.createKey({ role: 'admin', scopes: ['*'] })).raw_key;
    keys.viewer = (await t.createKey({ role: 'viewer', scopes: ['assets:read'] })).raw_key;
    keys.noScope = (await t.createKey({ role: 'operator', scopes: ['groups:read'] })).raw_key;
  });

  async function create(key: string, body: Record<string, unknown>): Promise<SavedFilter> {
    const res = await hub().request('POST', base, { key, body });
    expect(res.status, res.text).toBe(201);
    return res.json.data as SavedFilter;
  }

  async function list(key: string): Promise<SavedFilter[]> {
    const res = await hub().request('GET', `${base}?per_page=100`, { key });
    expect(res.status, res.text).toBe(200);
    return res.json.data as SavedFilter[];
  }

  it('keeps a filter to its owner: others, admins included, neither list nor change it (404)', async () => {
    const t = hub();
    const saved = await create(keys.alice, {
      name: 'Web servers down',
      criteria: { q: 'web', status: 'offline', sort: '-last_seen_at' },
    });
    expect(saved).toMatchObject({
      name: 'Web servers down',
      criteria: { q: 'web', status: 'offline', sort: '-last_seen_at' },
    });
    expect(saved.id).toMatch(/^flt_/);
    expect(await list(keys.alice)).toEqual([saved]);
    for (const key of [keys.bob, keys.admin]) {
      expect((await list(key)).map((f) => f.id)).not.toContain(saved.id);
      const patch = await t.request('PATCH', `${base}/${saved.id}`, { key, body: { name: 'x' } });
      expect(patch.status).toBe(404);
      expect(patch.json.error).toBe('not_found');
      expect((await t.request('DELETE', `${base}/${saved.id}`, { key })).status).toBe(404);
    }
    const renamed = await t.request('PATCH', `${base}/${saved.id}`, {
      key: keys.alice,
      body: { name: 'Web, offline' },
    });
    expect(renamed.status, renamed.text).toBe(200);
    expect(renamed.json.data).toMatchObject({ name: 'Web, offline', criteria: saved.criteria });
    expect((await t.request('DELETE', `${base}/${saved.id}`, { key: keys.alice })).status).toBe(200);
    expect(await list(keys.alice)).toEqual([]);
  });

  it('lets a viewer keep filters of their own; a key without assets:read gets 403', async () => {
    const t = hub();
    const mine = await create(keys.viewer, { name: 'Linux', criteria: { platform: 'linux' } });
    expect((await list(keys.viewer)).map((f) => f.name)).toEqual(['Linux']);
    const patch = await t.request('PATCH', `${base}/${mine.id}`, {
      key: keys.viewer,
      body: { criteria: { platform: 'windows' } },
    });
    expect(patch.status, patch.text).toBe(200);
    expect((await t.request('DELETE', `${base}/${mine.id}`, { key: keys.viewer })).status).toBe(200);
    const refused = await t.request('GET', base, { key: keys.noScope });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');
  });

  it('refuses bad input with 400 saying which field is wrong', async () => {
    const t = hub();
    const bad: [Record<string, unknown>, string][] = [
      [{ criteria: {} }, 'name'],
      [{ name: '', criteria: {} }, 'name'],
      [{ name: 'n'.repeat(savedFilterLimits.nameLength + 1), criteria: {} }, 'name'],
      [{ name: 'bell\u0007', criteria: {} }, 'name'],
      [{ name: 'no criteria' }, 'criteria'],
      [{ name: 'bad status', criteria: { status: 'sleeping' } }, 'status'],
      [{ name: 'bad sort', criteria: { sort: 'ip' } }, 'sort'],
      [{ name: 'unknown field', criteria: { colour: 'red' } }, 'colour'],
      [{ name: 'extra', criteria: {}, owner_id: 'someone' }, 'owner_id'],
    ];
    for (const [body, field] of bad) {
      const res = await t.request('POST', base, { key: keys.bob, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json.error).toBe('validation');
      expect(res.text, JSON.stringify(body).slice(0, 60)).toContain(field);
    }
    const empty = await t.request('PATCH', `${base}/flt_none`, { key: keys.bob, body: {} });
    expect(empty.status).toBe(400);
  });

  it('refuses a second filter of the same name and more than the limit with 409', async () => {
    const t = hub();
    const key = (await t.createKey({ role: 'operator', scopes: ['assets:read'] })).raw_key;
    await create(key, { name: 'twice', criteria: {} });
    const twice = await t.request('POST', base, { key, body: { name: 'twice', criteria: { q: 'a' } } });
    expect(twice.status).toBe(409);
    expect(twice.json.message).toContain('twice');
    for (let i = 1; i < savedFilterLimits.perOwner; i++) {
      const res = await t.request('POST', base, { key, body: { name: `f${i}`, criteria: { q: `${i}` } } });
      if (res.status !== 201) throw new Error(`create ${i}: ${res.text}`);
    }
    const over = await t.request('POST', base, { key, body: { name: 'one more', criteria: {} } });
    expect(over.status).toBe(409);
    expect(over.json.message).toContain(String(savedFilterLimits.perOwner));
  });

  it('forgets the filters of a deleted key', async () => {
    const t = hub();
    const key = await t.createKey({ role: 'operator', scopes: ['assets:read'] });
    await create(key.raw_key, { name: 'gone soon', criteria: {} });
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    const left = async () =>
      (
        await t.hub.database.db
          .selectFrom('asset_filters')
          .select('id')
          .where('owner_id', '=', key.id)
          .execute()
      ).length;
    await expect.poll(left).toBe(0);
  });
});
