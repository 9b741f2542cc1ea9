/**
 * Decision 0087: an admin disables, enables and deletes users. What the disabled or deleted user, their
 * sessions, keys and schedules, and the callers who may not do it, see.
 */
import type { ExpressionBuilder } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ApiKeyCreated, Bookmark, Schedule, ScheduleRun, Snippet, User } from '@svc/protocol';
import { databaseTargets, type InjectResult, type TestHub } from '@svc/testkit';
import type { Database } from '../../platform/db/schema.js';
import { connectExecCountingAgent } from '../../testing/exec-counting-agent.js';
import { useOperations, type OperationsApp } from '../../testing/operations-app.js';

// inject() sends this Host unless told otherwise; a same-origin request from the console carries its origin.
const ownOrigin = 'http://localhost:80';
const password = 'a long enough password';

function sessionCookie(res: InjectResult): string {
  const header = res.headers['set-cookie'];
  const cookies = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  const cookie = cookies.find((c) => c.startsWith('svc_session='));
  if (!cookie) throw new Error(`no session cookie: ${res.text}`);
  return cookie.split(';')[0] ?? '';
}

function login(t: TestHub, username: string, pw = password) {
  return t.request('POST', '/api/auth/login', { key: null, body: { username, password: pw } });
}

async function signIn(t: TestHub, username: string): Promise<string> {
  const res = await login(t, username);
  expect(res.status, res.text).toBe(200);
  return sessionCookie(res);
}

function asSession(t: TestHub, cookie: string, method: string, url: string, body?: unknown) {
  return t.request(method, url, {
    key: null,
    headers: { cookie, origin: ownOrigin },
    ...(body !== undefined ? { body } : {}),
  });
}

async function createUser(t: TestHub, username: string, role: 'admin' | 'operator' | 'viewer') {
  const res = await t.request('POST', '/api/auth/users', { body: { username, password, role } });
  expect(res.status, res.text).toBe(201);
  return res.json.data as User;
}

/** An admin user with a session and a full key of their own (keys are made by admins only). */
async function adminWithKey(t: TestHub, username: string) {
  const user = await createUser(t, username, 'admin');
  const cookie = await signIn(t, username);
  const made = await asSession(t, cookie, 'POST', '/api/v2/keys', {
    name: `${username}'s key`,
    role: 'admin',
    scopes: ['*'],
  });
  expect(made.status, made.text).toBe(201);
  return { user, cookie, key: made.json.data as ApiKeyCreated };
}

async function runsOf(ops: OperationsApp, id: string): Promise<ScheduleRun[]> {
  const res = await ops.request('GET', `/api/v2/schedules/${id}/runs`);
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json.data as ScheduleRun[];
}

const snippetsUrl = '/api/v2/terminal-snippets';
const bookmarksUrl = '/api/v2/terminal-bookmarks';
const filtersUrl = '/api/v2/asset-filters';

/**
 * Rows of a user in the tables of other modules: WebAuthn, push, telemetry, personal snippets, bookmarks,
 * saved filters of the assets list.
 */
async function leftoversOf(t: TestHub, userId: string, keyId: string) {
  const db = t.hub.database.db;
  const theirs = (
    eb: ExpressionBuilder<Database, 'terminal_snippets' | 'terminal_bookmarks' | 'asset_filters'>,
  ) =>
    eb.or([
      eb.and([eb('owner_type', '=', 'session'), eb('owner_id', '=', userId)]),
      eb.and([eb('owner_type', '=', 'api_key'), eb('owner_id', '=', keyId)]),
    ]);
  return {
    passkeys: await db
      .selectFrom('webauthn_credentials')
      .select('id')
      .where('user_id', '=', userId)
      .execute(),
    push: await db.selectFrom('push_subscriptions').select('id').where('user_id', '=', userId).execute(),
    telemetry: await db.selectFrom('mobile_telemetry').select('id').where('user_id', '=', userId).execute(),
    // Shared snippets are not only theirs: others use them (kept, or handed to the heir).
    personalSnippets: await db
      .selectFrom('terminal_snippets')
      .select('id')
      .where('scope', '=', 'personal')
      .where(theirs)
      .execute(),
    bookmarks: await db.selectFrom('terminal_bookmarks').select('id').where(theirs).execute(),
    savedFilters: await db.selectFrom('asset_filters').select('id').where(theirs).execute(),
  };
}

/**
 * A user with what they keep elsewhere: a passkey, a push subscription and telemetry from their phone (put in
 * as the mobile routes would: their ceremonies need a real authenticator and push service), and through their
 * session and their key a personal and a shared snippet and a bookmark each.
 */
async function userWithData(t: TestHub, username: string) {
  const { user, cookie, key } = await adminWithKey(t, username);
  const asset = await t.createAsset();
  const now = t.clock.now().toISOString();
  const db = t.hub.database.db;
  await db
    .insertInto('webauthn_credentials')
    .values({
      id: `wac_${username}`,
      user_id: user.id,
      device_id: `device-${username}`,
      credential_id: `cred-${username}`,
      public_key: 'pk',
      counter: 0,
      created_at: now,
      last_used_at: null,
    })
    .execute();
  await db
    .insertInto('push_subscriptions')
    .values({
      id: `psb_${username}`,
      user_id: user.id,
      device_id: `device-${username}`,
      endpoint: `https://push.example.test/${username}`,
      p256dh: 'p256dh',
      auth: 'auth',
      min_severity: 'warning',
      quiet_hours: null,
      digest_window_s: 0,
      sent_count: 0,
      failed_count: 0,
      last_error: null,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('mobile_telemetry')
    .values({
      id: `mte_${username}`,
      user_id: user.id,
      device_id: `device-${username}`,
      name: 'app.opened',
      detail: '{}',
      ts: now,
      received_at: now,
    })
    .execute();
  const shared: Snippet[] = [];
  for (const [label, as] of [
    ['session', (method: string, url: string, body?: unknown) => asSession(t, cookie, method, url, body)],
    [
      'key',
      (method: string, url: string, body?: unknown) => t.request(method, url, { key: key.raw_key, body }),
    ],
  ] as const) {
    const personal = await as('POST', snippetsUrl, { name: `${username}-${label}-mine`, text: 'uptime' });
    expect(personal.status, personal.text).toBe(201);
    const common = await as('POST', snippetsUrl, {
      name: `${username}-${label}-shared`,
      text: 'df -h',
      scope: 'shared',
    });
    expect(common.status, common.text).toBe(201);
    shared.push(common.json.data as Snippet);
    const mark = await as('POST', bookmarksUrl, { asset_id: asset.id, directory: `/srv/${label}` });
    expect(mark.status, mark.text).toBe(201);
    expect((mark.json.data as Bookmark).directory).toBe(`/srv/${label}`);
    const filter = await as('POST', filtersUrl, {
      name: `${label} offline`,
      criteria: { status: 'offline' },
    });
    expect(filter.status, filter.text).toBe(201);
  }
  const before = await leftoversOf(t, user.id, key.id);
  expect(Object.values(before).map((rows) => rows.length)).toEqual([1, 1, 1, 2, 2, 2]);
  return { user, cookie, key, shared };
}

async function sharedSnippets(t: TestHub, cookie: string): Promise<Snippet[]> {
  const res = await asSession(t, cookie, 'GET', `${snippetsUrl}?scope=shared&per_page=500`);
  expect(res.status, res.text).toBe(200);
  return res.json.data as Snippet[];
}

async function deletedDetail(t: TestHub, userId: string): Promise<Record<string, unknown>> {
  const row = await t.hub.database.db
    .selectFrom('audit_events')
    .select('detail')
    .where('action', '=', 'user.deleted')
    .where('target_id', '=', userId)
    .executeTakeFirstOrThrow();
  return JSON.parse(row.detail) as Record<string, unknown>;
}

describe.each(databaseTargets())('disabling and deleting users ($name)', ({ options }) => {
  const use = useOperations(options);

  it('a disabled user cannot sign in, their session and key get 401; enabled, the key works again', async () => {
    const { t } = use();
    const { user, cookie, key } = await adminWithKey(t, 'ann');
    expect((await asSession(t, cookie, 'GET', '/api/auth/me')).status).toBe(200);
    expect((await t.request('GET', '/api/auth/users', { key: key.raw_key })).status).toBe(200);

    const disabled = await t.request('POST', `/api/auth/users/${user.id}/disable`);
    expect(disabled.status, disabled.text).toBe(200);
    expect((disabled.json.data as User).disabled_at).toBe(t.clock.now().toISOString());

    const me = await asSession(t, cookie, 'GET', '/api/auth/me');
    expect(me.status).toBe(401);
    const byKey = await t.request('GET', '/api/auth/users', { key: key.raw_key });
    expect(byKey.status).toBe(401);
    expect(byKey.json.error).toBe('unauthorized');
    const sessions = await t.hub.database.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', user.id)
      .execute();
    expect(sessions).toEqual([]);

    // The right password learns the account is disabled; a wrong one learns what it always did.
    const right = await login(t, 'ann');
    expect(right.status).toBe(403);
    expect(right.json.error).toBe('account_disabled');
    expect(right.headers['set-cookie']).toBeUndefined();
    const wrong = await login(t, 'ann', 'not the password at all');
    const unknown = await login(t, 'nobody-here', 'not the password at all');
    expect(wrong.status).toBe(401);
    expect(wrong.json.message).toBe(unknown.json.message);

    // Listed as disabled; disabling again changes nothing.
    const listed = (await t.request('GET', '/api/auth/users?per_page=100')).json.data as User[];
    expect(listed.find((u) => u.id === user.id)?.disabled_at).not.toBeNull();
    const again = await t.request('POST', `/api/auth/users/${user.id}/disable`);
    expect(again.status).toBe(200);

    const enabled = await t.request('POST', `/api/auth/users/${user.id}/enable`);
    expect(enabled.status, enabled.text).toBe(200);
    expect((enabled.json.data as User).disabled_at).toBeNull();
    expect((await t.request('GET', '/api/auth/users', { key: key.raw_key })).status).toBe(200);
    // The old session stays ended; a new sign-in works.
    expect((await asSession(t, cookie, 'GET', '/api/auth/me')).status).toBe(401);
    await signIn(t, 'ann');

    const audited = await t.hub.database.db
      .selectFrom('audit_events')
      .select(['action', 'actor_type'])
      .where('target_id', '=', user.id)
      .orderBy('ts')
      .execute();
    expect(audited.map((a) => a.action)).toEqual(
      expect.arrayContaining(['user.disabled', 'user.enabled', 'auth.sign_in_refused_disabled']),
    );
    expect(audited.filter((a) => a.action === 'user.disabled')).toHaveLength(1);
  });

  it("ends at once what the user's session and key hold open (event streams, terminals)", async () => {
    const { t } = use();
    const { user, cookie, key } = await adminWithKey(t, 'streamer');
    const session = await t.hub.services.sessions.resolve(cookie.slice('svc_session='.length));
    const principal = await t.hub.services.apiKeys.authenticate(key.raw_key);
    if (!session || !principal?.key) throw new Error('the session or key did not resolve');
    const ends: string[] = [];
    t.hub.credentials.onSessionEnded(
      { id: session.sessionId, userId: user.id, expiresAt: session.expiresAt },
      (end) => ends.push(`session:${end}`),
    );
    t.hub.credentials.onCredentialEnded(principal.key, (end) => ends.push(`key:${end}`));

    expect((await t.request('POST', `/api/auth/users/${user.id}/disable`)).status).toBe(200);

    await expect.poll(() => [...ends].sort(), { timeout: 5_000 }).toEqual(['key:revoked', 'session:revoked']);
  });

  it('refuses viewers, operators and narrowed admin keys (403), the owner and oneself (409)', async () => {
    const { t } = use();
    const target = await createUser(t, 'target-bo', 'viewer');
    await createUser(t, 'vera', 'viewer');
    await createUser(t, 'otto', 'operator');
    const { user: admin, cookie: adminCookie } = await adminWithKey(t, 'adam');
    const narrow = await t.createKey({ role: 'admin', scopes: ['assets:*', 'users:read'] });
    const operatorKey = await t.createKey({ role: 'operator', scopes: ['*'] });
    const viewerKey = await t.createKey({ role: 'viewer', scopes: ['*'] });
    const routes = [
      ['POST', `/api/auth/users/${target.id}/disable`],
      ['POST', `/api/auth/users/${target.id}/enable`],
      ['DELETE', `/api/auth/users/${target.id}`],
    ] as const;
    for (const username of ['vera', 'otto']) {
      const cookie = await signIn(t, username);
      for (const [method, url] of routes) {
        const res = await asSession(t, cookie, method, url);
        expect(res.status, `${username} ${method} ${url}`).toBe(403);
      }
    }
    for (const key of [narrow.raw_key, operatorKey.raw_key, viewerKey.raw_key]) {
      for (const [method, url] of routes) {
        const res = await t.request(method, url, { key });
        expect(res.status, `${method} ${url}`).toBe(403);
      }
    }
    expect((await t.request('GET', `/api/auth/users?per_page=100`)).json.data).toContainEqual(
      expect.objectContaining({ id: target.id, disabled_at: null }),
    );

    const owner = await t.hub.database.db
      .selectFrom('users')
      .select('id')
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    for (const [method, url] of [
      ['POST', `/api/auth/users/${owner.id}/disable`],
      ['DELETE', `/api/auth/users/${owner.id}`],
    ] as const) {
      const res = await asSession(t, adminCookie, method, url);
      expect(res.status, `${method} ${url}`).toBe(409);
      expect(res.json.message).toContain('owner');
      const byOwner = await t.request(method, url);
      expect(byOwner.status).toBe(409);
    }
    for (const [method, url] of [
      ['POST', `/api/auth/users/${admin.id}/disable`],
      ['DELETE', `/api/auth/users/${admin.id}`],
    ] as const) {
      const res = await asSession(t, adminCookie, method, url);
      expect(res.status, `${method} ${url}`).toBe(409);
      expect(res.json.message).toContain('your own account');
    }
    expect((await t.request('POST', '/api/auth/users/user_doesnotexist/disable')).status).toBe(404);
    expect((await t.request('DELETE', '/api/auth/users/user_doesnotexist')).status).toBe(404);
    // Still signed in and unchanged after every refusal.
    expect((await asSession(t, adminCookie, 'GET', '/api/auth/me')).status).toBe(200);
  });

  it('a schedule running as a disabled user is refused with the reason, and runs again once enabled', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const agent = connectExecCountingAgent(ops.gateway, asset.id, () => 'ran\n');
    const { user, key } = await adminWithKey(t, 'sched-sue');
    const created = await ops.request('POST', '/api/v2/schedules', {
      key: key.raw_key,
      body: { name: 'sue nightly', cron: '0 * * * * *', command: 'true', targets: [asset.id] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const schedule = created.json.data as Schedule;
    expect((await t.request('POST', `/api/auth/users/${user.id}/disable`)).status).toBe(200);

    t.clock.set(new Date(Date.parse(schedule.next_run_at ?? '') + 200));
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(0);
    const [refused] = await runsOf(ops, schedule.id);
    expect(refused?.status).toBe('refused');
    expect(refused?.error).toContain('sched-sue');
    expect(refused?.error).toContain('is disabled');

    expect((await t.request('POST', `/api/auth/users/${user.id}/enable`)).status).toBe(200);
    t.clock.advance(60_000);
    await ops.scheduler.runDue();
    await ops.scheduler.idle();
    expect(agent.calls).toBe(1);
    expect((await runsOf(ops, schedule.id)).map((r) => r.status)).toContain('completed');
  });

  it('a delete is refused while schedules run as the user, then reassigns them and removes keys and sessions', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const { user, cookie, key } = await adminWithKey(t, 'dora');
    const heir = await createUser(t, 'heir-op', 'operator');
    const created = await ops.request('POST', '/api/v2/schedules', {
      key: key.raw_key,
      body: { name: 'dora weekly', cron: '0 3 * * 1', command: 'true', targets: [asset.id] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const schedule = created.json.data as Schedule;

    const refused = await t.request('DELETE', `/api/auth/users/${user.id}`);
    expect(refused.status).toBe(409);
    expect(refused.json.message).toContain('"dora weekly"');
    expect(refused.json.message).toContain(schedule.id);
    expect(refused.json.message).toContain('reassign_to');
    expect((await t.request('GET', '/api/auth/users', { key: key.raw_key })).status).toBe(200);

    const badHeir = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=${user.id}`);
    expect(badHeir.status).toBe(400);
    const unknownHeir = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=user_none`);
    expect(unknownHeir.status).toBe(400);

    const deleted = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=${heir.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect((deleted.json.data as User).username).toBe('dora');

    expect((await t.request('GET', '/api/auth/users', { key: key.raw_key })).status).toBe(401);
    expect((await asSession(t, cookie, 'GET', '/api/auth/me')).status).toBe(401);
    expect((await login(t, 'dora')).status).toBe(401);
    const db = t.hub.database.db;
    expect(await db.selectFrom('api_keys').select('id').where('user_id', '=', user.id).execute()).toEqual([]);
    expect(await db.selectFrom('users').select('id').where('id', '=', user.id).execute()).toEqual([]);

    // The schedule runs as the heir now, never with more than the heir's role.
    const row = await db
      .selectFrom('schedules')
      .select('run_as')
      .where('id', '=', schedule.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.run_as)).toMatchObject({ userId: heir.id, keyId: null, role: 'operator' });

    // The audit trail keeps what the user did, under their id, and says whose id it was.
    const theirs = await db
      .selectFrom('audit_events')
      .select('action')
      .where('actor_id', '=', user.id)
      .execute();
    expect(theirs.map((a) => a.action)).toContain('api_key.created');
    const gone = await db
      .selectFrom('audit_events')
      .select('detail')
      .where('action', '=', 'user.deleted')
      .where('target_id', '=', user.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(gone.detail)).toMatchObject({
      username: 'dora',
      keys_deleted: 1,
      schedules_reassigned: 1,
      reassigned_to: heir.id,
    });
    const keyDeleted = await db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', key.id)
      .execute();
    expect(keyDeleted.map((a) => a.action)).toContain('api_key.deleted');
  });

  it('refuses a viewer or a disabled user as the heir (400) and deletes nothing', async () => {
    const { t, ops } = use();
    const asset = await t.createAsset();
    const { user, key } = await adminWithKey(t, 'vince');
    const viewer = await createUser(t, 'heir-viewer', 'viewer');
    const resting = await createUser(t, 'heir-resting', 'operator');
    expect((await t.request('POST', `/api/auth/users/${resting.id}/disable`)).status).toBe(200);
    const created = await ops.request('POST', '/api/v2/schedules', {
      key: key.raw_key,
      body: { name: 'vince nightly', cron: '0 2 * * *', command: 'true', targets: [asset.id] },
    });
    expect(created.status, JSON.stringify(created.json)).toBe(201);
    const schedule = created.json.data as Schedule;

    const toViewer = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=${viewer.id}`);
    expect(toViewer.status, toViewer.text).toBe(400);
    expect(toViewer.json.message).toContain(
      'heir-viewer is a viewer, who cannot run schedules or edit snippets',
    );
    const toDisabled = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=${resting.id}`);
    expect(toDisabled.status, toDisabled.text).toBe(400);
    expect(toDisabled.json.message).toContain('enabled');

    // Nothing went: the user, their key and the schedule running as them are as they were.
    const db = t.hub.database.db;
    expect(await db.selectFrom('users').select('id').where('id', '=', user.id).execute()).toHaveLength(1);
    expect((await t.request('GET', '/api/auth/users', { key: key.raw_key })).status).toBe(200);
    const row = await db
      .selectFrom('schedules')
      .select('run_as')
      .where('id', '=', schedule.id)
      .executeTakeFirstOrThrow();
    expect(JSON.parse(row.run_as)).toMatchObject({ userId: user.id });
    const deleted = await db
      .selectFrom('audit_events')
      .select('id')
      .where('action', '=', 'user.deleted')
      .where('target_id', '=', user.id)
      .execute();
    expect(deleted).toEqual([]);
  });

  it('deletes a user nothing runs as without reassign_to', async () => {
    const { t } = use();
    const user = await createUser(t, 'plain-pat', 'viewer');
    const cookie = await signIn(t, 'plain-pat');
    const res = await t.request('DELETE', `/api/auth/users/${user.id}`);
    expect(res.status, res.text).toBe(200);
    expect((await asSession(t, cookie, 'GET', '/api/auth/me')).status).toBe(401);
    const listed = (await t.request('GET', '/api/auth/users?per_page=100')).json.data as User[];
    expect(listed.map((u) => u.username)).not.toContain('plain-pat');
    // The name is free again.
    await createUser(t, 'plain-pat', 'viewer');
  });

  it('leaves nothing of theirs behind; their shared snippets stay for the others under their id', async () => {
    const { t } = use();
    const { user, cookie, key, shared } = await userWithData(t, 'lena');
    await createUser(t, 'colleague', 'operator');
    const colleague = await signIn(t, 'colleague');

    const res = await t.request('DELETE', `/api/auth/users/${user.id}`);
    expect(res.status, res.text).toBe(200);

    // Their former credentials get nowhere, and nothing of theirs is left in those tables.
    expect((await asSession(t, cookie, 'GET', snippetsUrl)).status).toBe(401);
    expect((await t.request('GET', bookmarksUrl, { key: key.raw_key })).status).toBe(401);
    expect(await leftoversOf(t, user.id, key.id)).toEqual({
      passkeys: [],
      push: [],
      telemetry: [],
      personalSnippets: [],
      bookmarks: [],
      savedFilters: [],
    });
    // The shared ones stay, as their author left them: others use them, admins may change them.
    const seen = await sharedSnippets(t, colleague);
    const kept = seen.filter((s) => shared.some((x) => x.id === s.id));
    expect(kept.map((s) => [s.name, s.owner_type, s.owner_id, s.can_edit])).toEqual(
      expect.arrayContaining([
        ['lena-session-shared', 'session', user.id, false],
        ['lena-key-shared', 'api_key', key.id, false],
      ]),
    );
    expect(kept).toHaveLength(2);
    const edited = await t.request('PATCH', `${snippetsUrl}/${shared[0]!.id}`, { body: { text: 'df -i' } });
    expect(edited.status, edited.text).toBe(200);
    expect(await deletedDetail(t, user.id)).toMatchObject({
      keys_deleted: 1,
      passkeys_deleted: 1,
      push_subscriptions_deleted: 1,
      telemetry_deleted: 1,
      snippets_deleted: 2,
      shared_snippets_reassigned: 0,
      bookmarks_deleted: 2,
      asset_filters_deleted: 2,
    });
  });

  it('hands their shared snippets to reassign_to, who may then change them', async () => {
    const { t } = use();
    const { user, key, shared } = await userWithData(t, 'mona');
    const heir = await createUser(t, 'mona-heir', 'operator');
    const heirSession = await signIn(t, 'mona-heir');

    const res = await t.request('DELETE', `/api/auth/users/${user.id}?reassign_to=${heir.id}`);
    expect(res.status, res.text).toBe(200);

    const seen = (await sharedSnippets(t, heirSession)).filter((s) => shared.some((x) => x.id === s.id));
    expect(seen.map((s) => [s.owner_type, s.owner_id, s.can_edit])).toEqual([
      ['session', heir.id, true],
      ['session', heir.id, true],
    ]);
    const edited = await asSession(t, heirSession, 'PATCH', `${snippetsUrl}/${shared[1]!.id}`, {
      scope: 'personal',
    });
    expect(edited.status, edited.text).toBe(200);
    expect(await leftoversOf(t, user.id, key.id)).toMatchObject({
      personalSnippets: [],
      bookmarks: [],
      passkeys: [],
    });
    expect(await deletedDetail(t, user.id)).toMatchObject({
      reassigned_to: heir.id,
      snippets_deleted: 2,
      shared_snippets_reassigned: 2,
    });
    const moved = await t.hub.database.db
      .selectFrom('audit_events')
      .select(['target_id', 'detail'])
      .where('action', '=', 'snippet.updated')
      .where(
        'target_id',
        'in',
        shared.map((s) => s.id),
      )
      .execute();
    const owners = moved.map((m) => JSON.parse(m.detail) as { fields: string[] });
    expect(owners.filter((d) => d.fields.includes('owner'))).toEqual([
      expect.objectContaining({ fields: ['owner'], user_deleted: user.id, to: heir.id }),
      expect.objectContaining({ fields: ['owner'], user_deleted: user.id, to: heir.id }),
    ]);
  });
});
