import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  databaseTargets,
  startOidcProvider,
  startTestHub,
  type OidcTestProvider,
  type TestHub,
} from '@svc/testkit';
import {
  createOidcService,
  mapRole,
  oidcFlowLifetimeMs,
  usernameFor,
  type OidcRole,
  type OidcService,
} from './oidc.service.js';
import type { RequestMeta } from './login.service.js';

// The hub is only reached through inject(): the provider sends the browser back to this address, and the
// test hands the callback to the hub from there.
const redirectUri = 'http://hub.test/api/auth/oidc/callback';
const roleEnv = {
  SVC_OIDC_ROLE_CLAIM: 'groups',
  SVC_OIDC_ROLE_MAP: 'hub-admins=admin,hub-operators=operator,hub-viewers=viewer',
};
const meta: RequestMeta = { ip: '127.0.0.1', userAgent: 'vitest', requestId: 'req_oidc_test' };

let op: OidcTestProvider;
beforeAll(async () => {
  op = await startOidcProvider({ redirectUri });
});
afterAll(async () => {
  await op.close();
});

let accountSeq = 0;
/** A fresh account at the provider for the next sign-in. */
function signInAs(claims: Record<string, unknown>): string {
  const sub = `sub-${++accountSeq}-${Math.random().toString(36).slice(2, 8)}`;
  op.account = { sub, claims };
  op.denyWith = null;
  return sub;
}

function cookiesOf(headers: Record<string, unknown>): string[] {
  const value = headers['set-cookie'];
  if (Array.isArray(value)) return value.map(String);
  return typeof value === 'string' ? [value] : [];
}

function cookieValue(headers: Record<string, unknown>, name: string): string | null {
  for (const line of cookiesOf(headers)) {
    const [pair = ''] = line.split(';');
    if (pair.startsWith(`${name}=`)) return pair.slice(name.length + 1);
  }
  return null;
}

async function sessionCount(t: TestHub): Promise<number> {
  const row = await t.hub.database.db
    .selectFrom('sessions')
    .select((eb) => eb.fn.countAll<string | number>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

async function userBySubject(t: TestHub, sub: string) {
  return t.hub.database.db
    .selectFrom('users')
    .selectAll()
    .where('oidc_subject', '=', `${op.issuer}|${sub}`)
    .executeTakeFirst();
}

describe('OIDC role mapping and usernames (pure)', () => {
  const config = {
    roleClaim: 'groups',
    roleMap: { a: 'admin', o: 'operator', v: 'viewer' } as const,
    defaultRole: null,
  };

  it.each([
    { groups: ['v', 'a', 'o'], expected: 'admin' },
    { groups: ['o', 'v'], expected: 'operator' },
    { groups: 'v', expected: 'viewer' },
    { groups: ['x', 'y'], expected: null },
    { groups: undefined, expected: null },
    { groups: [42, { a: 1 }], expected: null },
    { groups: ['constructor', '__proto__', 'toString'], expected: null },
  ])('maps $groups to $expected; the highest mapped role wins', ({ groups, expected }) => {
    expect(mapRole(groups === undefined ? {} : { groups }, config)).toBe(expected);
  });

  it('falls back to the default role only when nothing matched', () => {
    expect(mapRole({ groups: ['x'] }, { ...config, defaultRole: 'viewer' })).toBe('viewer');
    expect(mapRole({ groups: ['o'] }, { ...config, defaultRole: 'viewer' })).toBe('operator');
  });

  it('reads a dotted claim path into nested objects (Keycloak realm_access.roles)', () => {
    const claims = { realm_access: { roles: ['offline', 'o'] } };
    expect(mapRole(claims, { ...config, roleClaim: 'realm_access.roles' })).toBe('operator');
  });

  it('never maps to owner, whatever the map says', () => {
    const roleMap = { boss: 'owner' } as unknown as Record<string, 'admin'>;
    expect(mapRole({ groups: ['boss'] }, { ...config, roleMap })).toBeNull();
  });

  it.each([
    [{ preferred_username: 'Alice.Smith' }, 'sub1', 'alice.smith'],
    [{ email: 'Bob@Example.COM' }, 'sub2', 'bob@example.com'],
    [{ preferred_username: 'José García' }, 'sub3', 'jose-garcia'],
    [{ preferred_username: 'x', email: 'carol@example.net' }, 'sub4', 'carol@example.net'],
    [{}, 'Auth0|ABC123', 'auth0-abc123'],
    [{ preferred_username: 'a'.repeat(100) }, 's', 'a'.repeat(64)],
  ])('derives a username from %j / %s', (claims, sub, expected) => {
    const name = usernameFor(claims, sub);
    expect(name).toBe(expected);
    expect(name).toMatch(/^[a-z0-9._@-]{3,64}$/);
  });

  it('derives a valid username from a subject with nothing usable in it', () => {
    const name = usernameFor({ preferred_username: '日本' }, '日本語');
    expect(name).toMatch(/^oidc-[0-9a-f]{12}$/);
    expect(usernameFor({}, '日本語')).toBe(name);
  });
});

describe.each(databaseTargets())('OIDC sign-in service against a real provider ($name)', ({ options }) => {
  let t: TestHub;
  let oidc: OidcService;

  function service(opts: { defaultRole?: OidcRole | null; maxPending?: number } = {}): OidcService {
    const config = t.config.oidc!;
    return createOidcService({
      config: opts.defaultRole === undefined ? config : { ...config, defaultRole: opts.defaultRole },
      clock: t.clock,
      accounts: t.hub.services.oidcAccounts,
      login: t.hub.services.login,
      ...(opts.maxPending ? { maxPending: opts.maxPending } : {}),
    });
  }

  async function signIn(s: OidcService = oidc) {
    const { url, state } = await s.start();
    const { callbackUrl } = await op.authorize(url);
    return s.finish({ params: callbackUrl.searchParams, cookieState: state, meta });
  }

  // One hub for the block: every test signs in a fresh account, and counts sessions before and after.
  beforeAll(async () => {
    t = await startTestHub({ ...options, env: op.hubEnv({ ...roleEnv, SVC_OIDC_DEFAULT_ROLE: 'viewer' }) });
    oidc = service();
  });
  afterAll(async () => {
    await t.close();
  });

  it('starts with PKCE S256, state and nonce, and finishes with a session for the mapped role', async () => {
    const sub = signInAs({
      preferred_username: 'dana',
      email: 'dana@example.test',
      groups: ['hub-operators'],
    });
    const { url, state } = await oidc.start();
    const authorization = new URL(url);
    expect(authorization.origin).toBe(op.issuer);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(authorization.searchParams.get('state')).toBe(state);
    expect(authorization.searchParams.get('nonce')).toBeTruthy();
    expect(authorization.searchParams.get('scope')).toBe('openid profile email groups');
    expect(authorization.searchParams.get('redirect_uri')).toBe(redirectUri);

    const { callbackUrl } = await op.authorize(url);
    const outcome = await oidc.finish({ params: callbackUrl.searchParams, cookieState: state, meta });

    const session = await t.hub.services.sessions.resolve(outcome.token!);
    expect(session?.authMethod).toBe('oidc');
    expect(session?.principal.role).toBe('operator');
    expect(session?.username).toBe('dana');
    const user = await userBySubject(t, sub);
    expect(user?.id).toBe(session?.principal.userId);
    expect(user?.password_hash).toBe('!oidc');
    // The verifier the hub sent to the token endpoint is the one behind the challenge it sent first.
    const verifier = op.tokenRequests.at(-1)?.get('code_verifier') ?? '';
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    expect(challenge).toBe(authorization.searchParams.get('code_challenge'));
  });

  it.each([
    { groups: ['hub-viewers', 'hub-admins'], expected: 'admin' },
    { groups: ['hub-operators'], expected: 'operator' },
    { groups: 'hub-viewers', expected: 'viewer' },
    { groups: ['elsewhere'], expected: 'viewer (default)' },
  ])('maps groups $groups to $expected', async ({ groups, expected }) => {
    const sub = signInAs({ preferred_username: `m-${accountSeq}`, groups });
    const outcome = await signIn();
    const session = await t.hub.services.sessions.resolve(outcome.token!);
    expect(session?.principal.role).toBe(expected.split(' ')[0]);
    expect((await userBySubject(t, sub))?.role).toBe(expected.split(' ')[0]);
  });

  it('refuses an account no role maps to when there is no default role, creating nothing', async () => {
    const sessionsBefore = await sessionCount(t);
    const strict = service({ defaultRole: null });
    const sub = signInAs({ preferred_username: 'nobody', groups: ['elsewhere'] });
    const attempt = signIn(strict);
    await expect(attempt).rejects.toMatchObject({
      code: 'forbidden',
      message: 'no role mapped for this account',
    });
    expect(await userBySubject(t, sub)).toBeUndefined();
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('takes the role from userinfo when the provider keeps claims out of the ID token', async () => {
    const plain = await startOidcProvider({ redirectUri, claimsInIdToken: false });
    try {
      plain.account = { sub: 'ui-user', claims: { preferred_username: 'uinfo', groups: ['hub-admins'] } };
      const s = createOidcService({
        config: {
          ...t.config.oidc!,
          issuer: plain.issuer,
          clientId: plain.clientId,
          clientSecret: plain.clientSecret,
        },
        clock: t.clock,
        accounts: t.hub.services.oidcAccounts,
        login: t.hub.services.login,
      });
      const { url, state } = await s.start();
      const { callbackUrl } = await plain.authorize(url);
      const outcome = await s.finish({ params: callbackUrl.searchParams, cookieState: state, meta });
      const session = await t.hub.services.sessions.resolve(outcome.token!);
      expect(session?.principal.role).toBe('admin');
      expect(session?.username).toBe('uinfo');
    } finally {
      await plain.close();
    }
  });

  it('refuses a disabled account after the provider vouched for it, starting no session (decision 0087)', async () => {
    const sub = signInAs({ preferred_username: 'dana', groups: ['hub-viewers'] });
    await signIn();
    const user = await userBySubject(t, sub);
    if (!user) throw new Error('no account was made');
    expect((await t.request('POST', `/api/auth/users/${user.id}/disable`)).status).toBe(200);
    const sessionsBefore = await sessionCount(t);

    await expect(signIn()).rejects.toMatchObject({ code: 'account_disabled' });
    expect(await sessionCount(t)).toBe(sessionsBefore);
    expect((await userBySubject(t, sub))?.id).toBe(user.id);
  });

  it('gives a deleted account a new one at its next sign-in, with nothing of the old (decision 0087)', async () => {
    const sub = signInAs({ preferred_username: 'ferris', groups: ['hub-operators'] });
    const first = await signIn();
    const before = await userBySubject(t, sub);
    if (!before) throw new Error('no account was made');
    const deleted = await t.request('DELETE', `/api/auth/users/${before.id}`);
    expect(deleted.status, deleted.text).toBe(200);
    expect(await t.hub.services.sessions.resolve(first.token!)).toBeNull();

    // As GitLab and Grafana do: the provider still vouches for the subject, so the hub makes an account anew.
    const again = await signIn();
    const after = await userBySubject(t, sub);
    expect(after?.id).toBeDefined();
    expect(after?.id).not.toBe(before.id);
    expect(after).toMatchObject({ username: 'ferris', role: 'operator', disabled_at: null });
    expect((await t.hub.services.sessions.resolve(again.token!))?.principal.userId).toBe(after?.id);
    const created = await t.hub.database.db
      .selectFrom('audit_events')
      .select('target_id')
      .where('action', '=', 'user.created')
      .where('target_id', 'in', [before.id, after!.id])
      .execute();
    expect(created).toHaveLength(2);
  });

  it('updates the role on every sign-in, and audits the creation once', async () => {
    const published: string[] = [];
    t.hub.events.subscribe((e) => published.push(e.type), { types: ['user.created', 'user.updated'] });
    const sub = signInAs({ preferred_username: 'erin', groups: ['hub-admins'] });
    await signIn();
    op.account = { sub, claims: { preferred_username: 'erin', groups: ['hub-viewers'] } };
    const second = await signIn();

    expect((await t.hub.services.sessions.resolve(second.token!))?.principal.role).toBe('viewer');
    const user = await userBySubject(t, sub);
    expect(user?.role).toBe('viewer');
    const created = await t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('action', '=', 'user.created')
      .where('target_id', '=', user!.id)
      .execute();
    expect(created).toHaveLength(1);
    expect(JSON.parse(created[0]!.detail)).toMatchObject({ via: 'oidc', username: 'erin', role: 'admin' });
    const users = await t.hub.database.db
      .selectFrom('users')
      .select('id')
      .where('oidc_subject', '=', user!.oidc_subject)
      .execute();
    expect(users).toHaveLength(1);
    expect(published).toEqual(['user.created', 'user.updated']);
  });

  it('never changes the owner, whatever the provider says', async () => {
    const sub = signInAs({ preferred_username: 'boss', groups: ['hub-viewers'] });
    const owner = await t.hub.database.db
      .selectFrom('users')
      .selectAll()
      .where('role', '=', 'owner')
      .executeTakeFirstOrThrow();
    await t.hub.database.db
      .updateTable('users')
      .set({ oidc_subject: `${op.issuer}|${sub}` })
      .where('id', '=', owner.id)
      .execute();

    const outcome = await signIn();

    const session = await t.hub.services.sessions.resolve(outcome.token!);
    expect(session?.principal.userId).toBe(owner.id);
    expect(session?.principal.role).toBe('owner');
    const after = await t.hub.database.db
      .selectFrom('users')
      .selectAll()
      .where('id', '=', owner.id)
      .executeTakeFirstOrThrow();
    expect(after.role).toBe('owner');
    expect(after.password_hash).toBe(owner.password_hash);
  });

  it('gives a clashing username a suffix and leaves the local user alone', async () => {
    const local = await t.request('POST', '/api/auth/users', {
      body: { username: 'frank', password: 'a long local password', role: 'operator' },
    });
    expect(local.status).toBe(201);
    const first = signInAs({ preferred_username: 'Frank', groups: ['hub-admins'] });
    await signIn();
    const second = signInAs({ preferred_username: 'frank', groups: ['hub-viewers'] });
    await signIn();

    expect((await userBySubject(t, first))?.username).toBe('frank-oidc');
    expect((await userBySubject(t, second))?.username).toMatch(/^frank-oidc-[a-z2-7]{5}$/);
    const localRow = await t.hub.database.db
      .selectFrom('users')
      .selectAll()
      .where('username', '=', 'frank')
      .executeTakeFirstOrThrow();
    expect(localRow.role).toBe('operator');
    expect(localRow.oidc_subject).toBeNull();
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'frank', password: 'a long local password' },
    });
    expect(login.status).toBe(200);
  });

  it('refuses a state that has expired', async () => {
    const sessionsBefore = await sessionCount(t);
    signInAs({ groups: ['hub-admins'] });
    const { url, state } = await oidc.start();
    const { callbackUrl } = await op.authorize(url);
    t.clock.advance(oidcFlowLifetimeMs + 1000);
    const attempt = oidc.finish({ params: callbackUrl.searchParams, cookieState: state, meta });
    await expect(attempt).rejects.toMatchObject({ code: 'unauthorized' });
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('keeps a bounded number of flows in flight, dropping the oldest', async () => {
    const small = service({ maxPending: 2 });
    signInAs({ groups: ['hub-admins'] });
    const oldest = await small.start();
    await small.start();
    const newest = await small.start();

    const stale = await op.authorize(oldest.url);
    await expect(
      small.finish({ params: stale.callbackUrl.searchParams, cookieState: oldest.state, meta }),
    ).rejects.toMatchObject({ code: 'unauthorized' });
    const fresh = await op.authorize(newest.url);
    const outcome = await small.finish({
      params: fresh.callbackUrl.searchParams,
      cookieState: newest.state,
      meta,
    });
    expect(outcome.token).toBeTruthy();
  });
});

describe.each(databaseTargets())('OIDC sign-in over HTTP ($name)', ({ options }) => {
  let t: TestHub;

  // One hub for the block, as above. No default role here: an account none of whose groups map is refused.
  beforeAll(async () => {
    t = await startTestHub({ ...options, env: op.hubEnv(roleEnv) });
  });
  afterAll(async () => {
    await t.close();
  });

  /** GET /start: the provider URL and the state cookie the browser got. */
  async function start() {
    const res = await t.request('GET', '/api/auth/oidc/start', { key: null });
    expect(res.status).toBe(302);
    const location = String(res.headers.location);
    const state = cookieValue(res.headers, 'svc_oidc_state');
    expect(state).toBeTruthy();
    return { location, state: state!, res };
  }

  function callback(search: string, cookie: string | null) {
    return t.request('GET', `/api/auth/oidc/callback${search}`, {
      key: null,
      headers: cookie === null ? {} : { cookie: `svc_oidc_state=${cookie}` },
    });
  }

  it('signs in end to end: a session cookie that /api/auth/me accepts, with the mapped role', async () => {
    const sub = signInAs({
      preferred_username: 'grace',
      email: 'grace@example.test',
      groups: ['hub-admins'],
    });
    const { location, state, res: startRes } = await start();
    const stateCookie = cookiesOf(startRes.headers).find((c) => c.startsWith('svc_oidc_state='))!;
    expect(stateCookie).toMatch(/HttpOnly/);
    expect(stateCookie).toMatch(/Secure/);
    expect(stateCookie).toMatch(/SameSite=Lax/);
    expect(stateCookie).toMatch(/Max-Age=600/);
    const authorization = new URL(location);
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('state')).toBe(state);

    const { callbackUrl } = await op.authorize(location);
    const done = await callback(callbackUrl.search, state);

    expect(done.status).toBe(302);
    expect(done.headers.location).toBe('/');
    const token = cookieValue(done.headers, 'svc_session');
    expect(token).toBeTruthy();
    expect(cookiesOf(done.headers).find((c) => c.startsWith('svc_oidc_state='))).toMatch(/Max-Age=0/);
    const me = await t.request('GET', '/api/auth/me', {
      key: null,
      headers: { cookie: `svc_session=${token}` },
    });
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ username: 'grace', role: 'admin', auth_method: 'oidc' });
    expect((await userBySubject(t, sub))?.role).toBe('admin');
  });

  it('refuses a tampered state and creates no session', async () => {
    const sessionsBefore = await sessionCount(t);
    signInAs({ groups: ['hub-admins'] });
    const { location, state } = await start();
    const { callbackUrl } = await op.authorize(location);
    const tampered = new URL(callbackUrl);
    const forged = `${state.slice(0, -2)}${state.endsWith('AA') ? 'BB' : 'AA'}`;
    tampered.searchParams.set('state', forged);

    const res = await callback(tampered.search, forged);

    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: 'unauthorized', status: 401 });
    expect(cookieValue(res.headers, 'svc_session')).toBeNull();
    // The refusal still ends the flow in the browser.
    expect(cookiesOf(res.headers).find((c) => c.startsWith('svc_oidc_state='))).toMatch(/Max-Age=0/);
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('refuses a replayed callback', async () => {
    const sessionsBefore = await sessionCount(t);
    signInAs({ groups: ['hub-operators'] });
    const { location, state } = await start();
    const { callbackUrl } = await op.authorize(location);
    expect((await callback(callbackUrl.search, state)).status).toBe(302);
    const tokenRequests = op.tokenRequests.length;

    const replay = await callback(callbackUrl.search, state);

    expect(replay.status).toBe(401);
    expect(replay.json.error).toBe('unauthorized');
    // Refused by the hub's single-use state, before the provider is asked (which would refuse the code too).
    expect(op.tokenRequests.length).toBe(tokenRequests);
    expect(cookieValue(replay.headers, 'svc_session')).toBeNull();
    expect(await sessionCount(t)).toBe(sessionsBefore + 1);
  });

  it('refuses a callback whose cookie state is another flow’s, or missing, and burns the state', async () => {
    const sessionsBefore = await sessionCount(t);
    signInAs({ groups: ['hub-admins'] });
    const victim = await start();
    const other = await start();
    const { callbackUrl } = await op.authorize(victim.location);
    const tokenRequests = op.tokenRequests.length;

    const wrong = await callback(callbackUrl.search, other.state);
    expect(wrong.status).toBe(401);
    expect(wrong.json.error).toBe('unauthorized');
    // The refused attempt used the flow up: even the right cookie cannot finish it now.
    expect((await callback(callbackUrl.search, victim.state)).status).toBe(401);

    const missing = await start();
    const second = await op.authorize(missing.location);
    expect((await callback(second.callbackUrl.search, null)).status).toBe(401);
    expect(op.tokenRequests.length).toBe(tokenRequests);
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('refuses a provider error and creates neither user nor session', async () => {
    const sessionsBefore = await sessionCount(t);
    const sub = signInAs({ preferred_username: 'denied', groups: ['hub-admins'] });
    op.denyWith = 'access_denied';
    const { location, state } = await start();
    const { callbackUrl } = await op.authorize(location);
    expect(callbackUrl.searchParams.get('error')).toBe('access_denied');

    const res = await callback(callbackUrl.search, state);

    expect(res.status).toBe(401);
    expect(res.json).toMatchObject({ error: 'unauthorized' });
    expect(String(res.json.message)).toContain('access_denied');
    expect(await userBySubject(t, sub)).toBeUndefined();
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('answers 400 when the callback lacks its state or code', async () => {
    const { state } = await start();
    const noState = await callback('?code=abc', state);
    expect(noState.status).toBe(400);
    expect(noState.json.error).toBe('validation');
    const noCode = await callback(`?state=${state}`, state);
    expect(noCode.status).toBe(400);
    expect(noCode.json.error).toBe('validation');
  });

  it('answers 403 when no role maps and there is no default role', async () => {
    const sessionsBefore = await sessionCount(t);
    const sub = signInAs({ preferred_username: 'stranger', groups: ['elsewhere'] });
    const { location, state } = await start();
    const { callbackUrl } = await op.authorize(location);

    const res = await callback(callbackUrl.search, state);

    expect(res.status).toBe(403);
    expect(res.json).toMatchObject({ error: 'forbidden', message: 'no role mapped for this account' });
    expect(cookieValue(res.headers, 'svc_session')).toBeNull();
    expect(await userBySubject(t, sub)).toBeUndefined();
    expect(await sessionCount(t)).toBe(sessionsBefore);
  });

  it('gives an OIDC account no way in by password', async () => {
    const sessionsBefore = await sessionCount(t);
    signInAs({ preferred_username: 'heidi', groups: ['hub-admins'] });
    const { location, state } = await start();
    const { callbackUrl } = await op.authorize(location);
    expect((await callback(callbackUrl.search, state)).status).toBe(302);

    for (const password of ['!oidc', '', 'heidi', 'a long password guess']) {
      const res = await t.request('POST', '/api/auth/login', {
        key: null,
        body: { username: 'heidi', password },
      });
      expect([400, 401]).toContain(res.status);
      expect(cookieValue(res.headers, 'svc_session')).toBeNull();
    }
    expect(await sessionCount(t)).toBe(sessionsBefore + 1);
  });
});

describe('OIDC sign-in when not configured', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each(['/api/auth/oidc/start', '/api/auth/oidc/callback?code=a&state=b'])(
    'answers 404 at %s',
    async (url) => {
      const res = await t.request('GET', url, { key: null });
      expect(res.status).toBe(404);
      expect(res.json).toMatchObject({ error: 'not_found', message: 'OIDC sign-in is not configured' });
      expect(res.headers.location).toBeUndefined();
    },
  );
});
