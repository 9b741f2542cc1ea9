/**
 * Terminal snippets over REST (decision 0091), on SQLite and, with SVC_TEST_DATABASE_URL, PostgreSQL: who sees
 * and who changes personal and shared snippets, the viewer kept out, the limits and bad input as 4xx.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { snippetLimits, type Snippet } from '@svc/protocol';
import { databaseTargets } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';

const base = '/api/v2/terminal-snippets';

describe.each(databaseTargets())('terminal snippets on $name', ({ options }) => {
  const hub = useTestHub(options);
  const keys = { alice: '', bob: '', admin: '', viewer: '' };

  beforeAll(async () => {
    const t = hub();
    keys.alice = (await t.createKey({ role: 'operator', scopes: ['assets:exec'], name: 'alice' })).raw_key;
    keys.bob = (await t.createKey({ role: 'operator', scopes: ['*'], name: 'bob' })).raw_key;
    keys.admin = (await t.createKey({ role: 'admin', scopes: ['*'], name: 'admin' })).raw_key;
    keys.viewer = (await t.createKey({ role: 'viewer', scopes: ['*'], name: 'viewer' })).raw_key;
  });

  async function create(key: string, body: Record<string, unknown>): Promise<Snippet> {
    const res = await hub().request('POST', base, { key, body });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Snippet;
  }

  async function names(key: string, query = ''): Promise<string[]> {
    const res = await hub().request('GET', `${base}?per_page=500${query}`, { key });
    expect(res.status, res.text).toBe(200);
    return (res.json.data as Snippet[]).map((s) => s.name);
  }

  it('keeps a personal snippet to its owner, admins included, and shows a shared one to every operator', async () => {
    const t = hub();
    const mine = await create(keys.alice, { name: 'alice-disk', text: 'df -h\n', description: 'disks' });
    expect(mine).toMatchObject({
      name: 'alice-disk',
      text: 'df -h\n',
      description: 'disks',
      scope: 'personal',
      owner_type: 'api_key',
      can_edit: true,
    });
    expect(mine.id).toMatch(/^snp_/);
    const shared = await create(keys.alice, { name: 'alice-logs', text: 'journalctl -f', scope: 'shared' });

    expect(await names(keys.alice)).toEqual(expect.arrayContaining(['alice-disk', 'alice-logs']));
    expect(await names(keys.bob)).toContain('alice-logs');
    expect(await names(keys.bob)).not.toContain('alice-disk');
    expect(await names(keys.admin)).not.toContain('alice-disk');
    expect(await names(keys.alice, '&scope=personal')).toEqual(['alice-disk']);
    expect(await names(keys.alice, '&scope=shared')).toContain('alice-logs');
    expect(await names(keys.alice, '&scope=shared')).not.toContain('alice-disk');

    const seenByBob = (await t.request('GET', `${base}?scope=shared`, { key: keys.bob })).json
      .data as Snippet[];
    expect(seenByBob.find((s) => s.id === shared.id)?.can_edit).toBe(false);
    const seenByAdmin = (await t.request('GET', `${base}?scope=shared`, { key: keys.admin })).json
      .data as Snippet[];
    expect(seenByAdmin.find((s) => s.id === shared.id)?.can_edit).toBe(true);
  });

  it('lets the author and admins change a shared snippet; others get 403, and 404 for a personal one', async () => {
    const t = hub();
    const shared = await create(keys.alice, {
      name: 'restart-web',
      text: 'systemctl restart nginx',
      scope: 'shared',
    });
    const personal = await create(keys.alice, { name: 'secret-ish', text: 'echo mine' });

    const byBob = await t.request('PATCH', `${base}/${shared.id}`, {
      key: keys.bob,
      body: { text: 'rm -rf /' },
    });
    expect(byBob.status).toBe(403);
    expect(byBob.json.error).toBe('forbidden');
    expect((await t.request('DELETE', `${base}/${shared.id}`, { key: keys.bob })).status).toBe(403);
    for (const key of [keys.bob, keys.admin]) {
      expect((await t.request('PATCH', `${base}/${personal.id}`, { key, body: { name: 'x' } })).status).toBe(
        404,
      );
      expect((await t.request('DELETE', `${base}/${personal.id}`, { key })).status).toBe(404);
    }

    t.clock.advance(60_000);
    const byAdmin = await t.request('PATCH', `${base}/${shared.id}`, {
      key: keys.admin,
      body: { text: 'systemctl reload nginx', description: null },
    });
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.json.data).toMatchObject({
      text: 'systemctl reload nginx',
      scope: 'shared',
      owner_id: shared.owner_id,
    });
    expect((byAdmin.json.data as Snippet).updated_at).not.toBe(shared.updated_at);
    // Only the author moves it out of everyone's sight.
    const hide = await t.request('PATCH', `${base}/${shared.id}`, {
      key: keys.admin,
      body: { scope: 'personal' },
    });
    expect(hide.status).toBe(403);
    const byAuthor = await t.request('PATCH', `${base}/${shared.id}`, {
      key: keys.alice,
      body: { scope: 'personal' },
    });
    expect(byAuthor.status).toBe(200);
    expect(await names(keys.bob)).not.toContain('restart-web');

    const again = await create(keys.alice, { name: 'shared-2', text: 'uptime', scope: 'shared' });
    const deleted = await t.request('DELETE', `${base}/${again.id}`, { key: keys.admin });
    expect(deleted.status).toBe(200);
    expect(await names(keys.alice)).not.toContain('shared-2');
    expect((await t.request('DELETE', `${base}/${again.id}`, { key: keys.admin })).status).toBe(404);
  });

  it("drops a deleted key's personal snippets and keeps its shared ones", async () => {
    const t = hub();
    const key = await t.createKey({ role: 'operator', scopes: ['assets:exec'] });
    await create(key.raw_key, { name: 'short-lived', text: 'true' });
    await create(key.raw_key, { name: 'outlives-its-key', text: 'true', scope: 'shared' });
    expect((await t.request('DELETE', `/api/v2/keys/${key.id}`)).status).toBe(200);
    // Nobody else could see the personal one: the table says it is gone.
    const left = async () =>
      (
        await t.hub.database.db
          .selectFrom('terminal_snippets')
          .select('name')
          .where('owner_id', '=', key.id)
          .execute()
      ).map((r) => r.name);
    await expect.poll(left).toEqual(['outlives-its-key']);
    expect(await names(keys.admin, '&scope=shared')).toContain('outlives-its-key');
  });

  it('audits writes without the text', async () => {
    const t = hub();
    const snippet = await create(keys.alice, { name: 'audited', text: 'echo top-secret-value' });
    const res = await t.request('GET', `/api/v2/audit/events?action=snippet.created&per_page=500`);
    expect(res.status, res.text).toBe(200);
    const events = res.json.data as { target_id: string; detail: unknown }[];
    const event = events.find((e) => e.target_id === snippet.id);
    expect(event?.detail).toEqual({ name: 'audited', scope: 'personal', length: 21 });
    expect(JSON.stringify(events)).not.toContain('top-secret-value');
  });

  it('keeps the viewer role out: no list, no writes', async () => {
    const t = hub();
    const list = await t.request('GET', base, { key: keys.viewer });
    expect(list.status).toBe(403);
    expect(list.json.error).toBe('read_only_role');
    const write = await t.request('POST', base, { key: keys.viewer, body: { name: 'v', text: 'ls' } });
    expect(write.status).toBe(403);
    const noScope = (await t.createKey({ role: 'operator', scopes: ['assets:read'] })).raw_key;
    expect((await t.request('GET', base, { key: noScope })).json.error).toBe('insufficient_scope');
  });

  it('refuses bad input with 400 and a text over the limit', async () => {
    const t = hub();
    const bad: Record<string, unknown>[] = [
      {},
      { name: 'no text' },
      { name: 'empty', text: '' },
      { name: '', text: 'ls' },
      { name: 'escape', text: 'echo \u001b[31mred' },
      { name: 'nul', text: 'a\u0000b' },
      { name: 'too long', text: 'x'.repeat(snippetLimits.textLength + 1) },
      { name: 'scope', text: 'ls', scope: 'everyone' },
      { name: 'extra', text: 'ls', owner_id: 'someone' },
    ];
    for (const body of bad) {
      const res = await t.request('POST', base, { key: keys.alice, body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.json.error).toBe('validation');
    }
    // Tab, carriage return and line feed are allowed: they are how a command line is laid out.
    const head = "printf '%s'\t";
    const longest = await create(keys.alice, {
      name: 'longest',
      text: `${head}${'y'.repeat(snippetLimits.textLength - head.length - 2)}\r\n`,
    });
    expect(longest.text.length).toBe(snippetLimits.textLength);
    expect((await t.request('PATCH', `${base}/${longest.id}`, { key: keys.alice, body: {} })).status).toBe(
      400,
    );
    expect((await t.request('GET', `${base}?scope=nope`, { key: keys.alice })).status).toBe(400);
  });

  it('holds at most the per-owner limit of snippets (409 beyond it)', async () => {
    const t = hub();
    const key = (await t.createKey({ role: 'operator', scopes: ['assets:exec'] })).raw_key;
    for (let i = 0; i < snippetLimits.perOwner; i++) {
      const res = await t.request('POST', base, { key, body: { name: `s${i}`, text: 'true' } });
      if (res.status !== 201) throw new Error(`create ${i}: ${res.text}`);
    }
    const over = await t.request('POST', base, { key, body: { name: 'one more', text: 'true' } });
    expect(over.status).toBe(409);
    expect(over.json.error).toBe('conflict');
    // Another owner is not affected.
    await create(keys.bob, { name: 'bob-still-can', text: 'true' });
  });
});
