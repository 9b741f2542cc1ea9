import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoginResult, SessionUser, User, Whoami } from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import { useTestHub } from '@svc/testkit/vitest';
import { sha256Hex } from '../../platform/crypto.js';

// inject() sends this Host unless told otherwise; a same-origin request from the console carries its origin.
const defaultHost = 'localhost:80';
const ownOrigin = `http://${defaultHost}`;
const dayMs = 24 * 60 * 60 * 1000;

function setCookies(res: InjectResult): string[] {
  const header = res.headers['set-cookie'];
  if (header === undefined) return [];
  return Array.isArray(header) ? header : [String(header)];
}

/** The svc_session cookie a response set: its value and its attributes. */
function sessionCookieOf(res: InjectResult): { value: string; attributes: string[] } | null {
  const cookie = setCookies(res).find((c) => c.startsWith('svc_session='));
  if (!cookie) return null;
  const [pair = '', ...attributes] = cookie.split(';').map((part) => part.trim());
  return { value: pair.slice('svc_session='.length), attributes };
}

describe.each(databaseTargets())('console sessions ($name)', ({ options }) => {
  let t: TestHub;
  let ownerId: string;

  beforeEach(async () => {
    t = await startTestHub(options);
    const owner = await t.hub.database.db
      .selectFrom('users')
      .select('id')
      .where('username', '=', 'owner')
      .executeTakeFirstOrThrow();
    ownerId = owner.id;
  });
  afterEach(async () => {
    await t.close();
  });

  function login(username: string, password: string, remoteAddress = '127.0.0.1') {
    return t.request('POST', '/api/auth/login', { key: null, body: { username, password }, remoteAddress });
  }

  /** Signs in and returns the cookie header value a browser would send back. */
  async function signIn(username: string, password: string, remoteAddress?: string): Promise<string> {
    const res = await login(username, password, remoteAddress);
    expect(res.status, res.text).toBe(200);
    const cookie = sessionCookieOf(res);
    if (!cookie) throw new Error(`no session cookie: ${JSON.stringify(res.headers)}`);
    return `svc_session=${cookie.value}`;
  }

  function withCookie(
    cookie: string,
    method: string,
    url: string,
    extra: { origin?: string; host?: string; body?: unknown } = {},
  ) {
    return t.request(method, url, {
      key: null,
      headers: {
        cookie,
        ...(extra.origin !== undefined ? { origin: extra.origin } : {}),
        ...(extra.host !== undefined ? { host: extra.host } : {}),
      },
      ...(extra.body !== undefined ? { body: extra.body } : {}),
    });
  }

  async function createUser(username: string, password: string, role: 'admin' | 'operator' | 'viewer') {
    const res = await t.request('POST', '/api/auth/users', { body: { username, password, role } });
    expect(res.status, res.text).toBe(201);
    return res.json.data as User;
  }

  async function sessionRows(userId?: string) {
    let query = t.hub.database.db.selectFrom('sessions').selectAll();
    if (userId) query = query.where('user_id', '=', userId);
    return query.execute();
  }

  async function assetCount(): Promise<number> {
    return (await t.hub.database.db.selectFrom('assets').select('id').execute()).length;
  }

  it('signs in with the owner password: an HttpOnly Secure SameSite=Lax cookie for 24 h, only its SHA-256 stored', async () => {
    const res = await login('owner', t.ownerPassword);

    expect(res.status, res.text).toBe(200);
    const result = res.json.data as LoginResult;
    expect(result.requires_2fa).toBe(false);
    expect(result.challenge_token).toBeUndefined();
    expect(result.user).toMatchObject({
      id: ownerId,
      username: 'owner',
      role: 'owner',
      totp_enabled: false,
      auth_method: 'password',
      session_expires_at: new Date(t.clock.now().getTime() + dayMs).toISOString(),
    });

    const cookie = sessionCookieOf(res);
    expect(cookie).not.toBeNull();
    const { value, attributes } = cookie ?? { value: '', attributes: [] };
    expect(value).toMatch(/^[a-z2-7]{52}$/);
    expect(attributes).toEqual(
      expect.arrayContaining(['HttpOnly', 'Secure', 'SameSite=Lax', 'Max-Age=86400', 'Path=/']),
    );
    // the token travels only in the cookie
    expect(res.text).not.toContain(value);

    const rows = await sessionRows();
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      user_id: ownerId,
      token_hash: sha256Hex(value),
      auth_method: 'password',
    });
    expect(JSON.stringify(rows)).not.toContain(value);
  });

  it('authenticates /api/auth/me, /api/v2/whoami and /api/v2/assets with the cookie', async () => {
    const asset = await t.createAsset({ name: 'seen-by-cookie' });
    const cookie = await signIn('owner', t.ownerPassword);

    const me = await withCookie(cookie, 'GET', '/api/auth/me');
    expect(me.status, me.text).toBe(200);
    expect(me.json.data).toMatchObject({
      id: ownerId,
      username: 'owner',
      role: 'owner',
      auth_method: 'password',
      totp_enabled: false,
    } satisfies Partial<SessionUser>);

    const whoami = await withCookie(cookie, 'GET', '/api/v2/whoami');
    expect(whoami.status, whoami.text).toBe(200);
    const who = whoami.json.data as Whoami;
    expect(who).toMatchObject({ auth_type: 'session', scopes: ['*'], user_id: ownerId, role: 'owner' });
    expect(who).not.toHaveProperty('key_id');

    const assets = await withCookie(cookie, 'GET', '/api/v2/assets');
    expect(assets.status, assets.text).toBe(200);
    expect((assets.json.data as { id: string }[]).map((a) => a.id)).toEqual([asset.id]);

    // the same requests without the cookie are anonymous
    for (const url of ['/api/auth/me', '/api/v2/whoami', '/api/v2/assets']) {
      const anonymous = await t.request('GET', url, { key: null });
      expect(anonymous.status, url).toBe(401);
    }
  });

  it('refuses a wrong password and an unknown user with the same 401 and no cookie', async () => {
    const wrong = await login('owner', `${t.ownerPassword}x`);
    const unknown = await login('nobody', t.ownerPassword);

    for (const res of [wrong, unknown]) {
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('unauthorized');
      expect(sessionCookieOf(res)).toBeNull();
    }
    expect(unknown.json.message).toBe(wrong.json.message);
    expect(await sessionRows()).toHaveLength(0);
  });

  it('allows 10 sign-ins a minute per account and IP: the 11th gets 429 with Retry-After', async () => {
    const statuses: number[] = [];
    let limited: InjectResult | null = null;
    for (let i = 0; i < 15 && !limited; i++) {
      const res = await login('owner', 'not the password');
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    expect(statuses).toEqual([...Array<number>(10).fill(401), 429]);
    expect(limited?.json.error).toBe('rate_limited');
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(Number(limited?.headers['retry-after'])).toBeLessThanOrEqual(60);

    // even the right password waits now, from this IP
    const right = await login('owner', t.ownerPassword);
    expect(right.status).toBe(429);
    expect(sessionCookieOf(right)).toBeNull();
    // the bucket is per account and IP: another loopback address, or another account, is not held back
    expect((await login('owner', t.ownerPassword, '127.0.0.2')).status).toBe(200);
    expect((await login('someone-else', 'not the password')).status).toBe(401);
  });

  it('refuses a sign-in over plain HTTP from a non-loopback client with 403 https_required', async () => {
    const res = await login('owner', t.ownerPassword, '203.0.113.7');
    expect(res.status).toBe(403);
    expect(res.json.error).toBe('https_required');
    expect(sessionCookieOf(res)).toBeNull();
    expect(await sessionRows()).toHaveLength(0);

    const second = await t.request('POST', '/api/auth/login/2fa', {
      key: null,
      body: { challenge_token: 'x'.repeat(52), code: '123456' },
      remoteAddress: '203.0.113.7',
    });
    expect(second.status).toBe(403);
    expect(second.json.error).toBe('https_required');
  });

  it("needs this hub's Origin on a cookie-authenticated mutation; a read needs none", async () => {
    const cookie = await signIn('owner', t.ownerPassword);

    const refused: [string, string | undefined, string | undefined][] = [
      ['no Origin', undefined, undefined],
      ['another site', 'https://evil.example', undefined],
      ['https instead of http', `https://${defaultHost}`, undefined],
      ['another port', 'http://localhost:8080', undefined],
      ['opaque origin', 'null', undefined],
      ['Origin matching a different Host', ownOrigin, 'hub.test:8080'],
    ];
    for (const [label, origin, host] of refused) {
      const res = await withCookie(cookie, 'POST', '/api/v2/assets', {
        body: { name: `csrf-${label.length}` },
        ...(origin !== undefined ? { origin } : {}),
        ...(host !== undefined ? { host } : {}),
      });
      expect(res.status, label).toBe(403);
      expect(res.json.error, label).toBe('forbidden');
    }
    expect(await assetCount()).toBe(0);

    const same = await withCookie(cookie, 'POST', '/api/v2/assets', {
      origin: ownOrigin,
      body: { name: 'mine' },
    });
    expect(same.status, same.text).toBe(201);
    const otherHost = await withCookie(cookie, 'POST', '/api/v2/assets', {
      origin: 'http://hub.test:8080',
      host: 'hub.test:8080',
      body: { name: 'mine-too' },
    });
    expect(otherHost.status, otherHost.text).toBe(201);
    expect(await assetCount()).toBe(2);

    const read = await withCookie(cookie, 'GET', '/api/v2/assets');
    expect(read.status).toBe(200);
    expect(read.json.meta?.total).toBe(2);
  });

  it('signs out: the session ends, the cookie is cleared, and a cross-site logout is refused', async () => {
    const cookie = await signIn('owner', t.ownerPassword);

    const crossSite = await withCookie(cookie, 'POST', '/api/auth/logout', {
      origin: 'https://evil.example',
    });
    expect(crossSite.status).toBe(403);
    expect((await withCookie(cookie, 'GET', '/api/auth/me')).status).toBe(200);

    const out = await withCookie(cookie, 'POST', '/api/auth/logout', { origin: ownOrigin });
    expect(out.status, out.text).toBe(200);
    expect(out.json.data).toEqual({ signed_out: true });
    const cleared = sessionCookieOf(out);
    expect(cleared?.value).toBe('');
    expect(cleared?.attributes).toContain('Max-Age=0');

    expect(await sessionRows()).toHaveLength(0);
    for (const url of ['/api/auth/me', '/api/v2/whoami']) {
      const after = await withCookie(cookie, 'GET', url);
      expect(after.status, url).toBe(401);
      expect(after.json.error).toBe('unauthorized');
    }
  });

  it('lets a viewer sign out but not create an asset', async () => {
    const viewer = await createUser('vera', 'viewer password', 'viewer');
    const cookie = await signIn('vera', 'viewer password');

    const me = await withCookie(cookie, 'GET', '/api/auth/me');
    expect(me.json.data).toMatchObject({ id: viewer.id, role: 'viewer' });
    const create = await withCookie(cookie, 'POST', '/api/v2/assets', {
      origin: ownOrigin,
      body: { name: 'nope' },
    });
    expect(create.status).toBe(403);
    expect(create.json.error).toBe('read_only_role');
    expect(await assetCount()).toBe(0);

    const out = await withCookie(cookie, 'POST', '/api/auth/logout', { origin: ownOrigin });
    expect(out.status, out.text).toBe(200);
    expect(await sessionRows(viewer.id)).toHaveLength(0);
    expect((await withCookie(cookie, 'GET', '/api/auth/me')).status).toBe(401);
  });

  it('expires a session 24 hours after sign-in, however active it was', async () => {
    const cookie = await signIn('owner', t.ownerPassword);
    for (let i = 0; i < 4; i++) {
      t.clock.advance(6 * 60 * 60 * 1000 - 1_000);
      expect((await withCookie(cookie, 'GET', '/api/auth/me')).status, `after ${i + 1} quarter days`).toBe(
        200,
      );
    }
    t.clock.advance(4_000); // now 24 h and a little after sign-in
    const expired = await withCookie(cookie, 'GET', '/api/auth/me');
    expect(expired.status).toBe(401);
    expect((await withCookie(cookie, 'GET', '/api/v2/whoami')).status).toBe(401);
    expect(await sessionRows()).toHaveLength(0);
  });

  it('ends every session of a user whose password is reset or whose role changes, and only theirs', async () => {
    const user = await createUser('olga', 'first password', 'operator');
    const first = await signIn('olga', 'first password');
    const second = await signIn('olga', 'first password', '127.0.0.3');
    const owner = await signIn('owner', t.ownerPassword);
    expect(await sessionRows(user.id)).toHaveLength(2);

    const reset = await t.request('PATCH', `/api/auth/users/${user.id}`, {
      body: { password: 'second password' },
    });
    expect(reset.status, reset.text).toBe(200);
    for (const cookie of [first, second])
      expect((await withCookie(cookie, 'GET', '/api/auth/me')).status).toBe(401);
    expect((await withCookie(owner, 'GET', '/api/auth/me')).status).toBe(200);
    expect((await login('olga', 'first password')).status).toBe(401);

    const third = await signIn('olga', 'second password');
    expect((await withCookie(third, 'GET', '/api/auth/me')).json.data).toMatchObject({ role: 'operator' });
    const demote = await t.request('PATCH', `/api/auth/users/${user.id}`, { body: { role: 'viewer' } });
    expect(demote.status, demote.text).toBe(200);
    // the old session would still carry the operator's rights: it must be gone
    expect((await withCookie(third, 'GET', '/api/auth/me')).status).toBe(401);
    const stale = await withCookie(third, 'POST', '/api/v2/assets', {
      origin: ownOrigin,
      body: { name: 'stale' },
    });
    expect(stale.status).toBe(401);
    expect(await sessionRows(user.id)).toHaveLength(0);
    expect((await withCookie(owner, 'GET', '/api/auth/me')).status).toBe(200);
  });

  it('keeps API keys out of /api/auth/me, logout and the 2FA routes (403 forbidden)', async () => {
    const admin = await t.createKey({ role: 'admin', scopes: ['*'] });
    const calls: [string, string, unknown][] = [
      ['GET', '/api/auth/me', undefined],
      ['POST', '/api/auth/logout', undefined],
      ['GET', '/api/auth/2fa', undefined],
      ['POST', '/api/auth/2fa/setup', undefined],
      ['POST', '/api/auth/2fa/verify', { code: '123456' }],
      ['POST', '/api/auth/2fa/disable', { code: '123456' }],
      ['POST', '/api/auth/2fa/recovery-codes', { code: '123456' }],
    ];
    for (const key of [t.ownerKey, admin.raw_key]) {
      for (const [method, url, body] of calls) {
        const res = await t.request(method, url, { key, ...(body !== undefined ? { body } : {}) });
        expect(res.status, `${method} ${url}`).toBe(403);
        expect(res.json.error, `${method} ${url}`).toBe('forbidden');
      }
    }
    const owner = await t.hub.database.db
      .selectFrom('users')
      .select(['totp_secret', 'totp_pending_secret'])
      .where('id', '=', ownerId)
      .executeTakeFirstOrThrow();
    expect(owner).toEqual({ totp_secret: null, totp_pending_secret: null });
  });

  it('answers 401 to a garbage, forged or tampered cookie', async () => {
    const real = sessionCookieOf(await login('owner', t.ownerPassword))?.value ?? '';
    expect(real).toMatch(/^[a-z2-7]{52}$/);
    const flipped = `${real.slice(0, -1)}${real.endsWith('a') ? 'b' : 'a'}`;
    const cookies = [
      'svc_session=garbage',
      'svc_session=',
      `svc_session=${'a'.repeat(52)}`,
      `svc_session=${flipped}`,
      `svc_session=${real.toUpperCase()}`,
      `svc_session=${sha256Hex(real)}`, // the stored hash is not a credential
      `svc_session=${'x'.repeat(5000)}`,
      `other_cookie=${real}`,
    ];
    for (const cookie of cookies) {
      for (const url of ['/api/auth/me', '/api/v2/whoami']) {
        const res = await withCookie(cookie, 'GET', url);
        expect(res.status, `${cookie.slice(0, 40)} ${url}`).toBe(401);
        expect(res.json.error).toBe('unauthorized');
      }
    }
    // and the real one still works
    expect((await withCookie(`svc_session=${real}`, 'GET', '/api/auth/me')).status).toBe(200);
  });
});

// A hub of its own, configured with a public origin.
describe.each(databaseTargets())('console sessions behind SVC_PUBLIC_ORIGIN ($name)', ({ options }) => {
  const hub = useTestHub({ ...options, env: { SVC_PUBLIC_ORIGIN: 'https://hub.example.net' } }, 'per-test');

  it('accepts only that origin on a cookie-authenticated mutation', async () => {
    const pub = hub();
    const res = await pub.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: pub.ownerPassword },
    });
    const value = sessionCookieOf(res)?.value;
    expect(value).toMatch(/^[a-z2-7]{52}$/);
    const post = (origin: string | undefined, name: string) =>
      pub.request('POST', '/api/v2/assets', {
        key: null,
        headers: { cookie: `svc_session=${value}`, ...(origin ? { origin } : {}) },
        body: { name },
      });

    for (const origin of [
      undefined,
      ownOrigin,
      'https://hub.example.net.evil.example',
      'http://hub.example.net',
    ]) {
      const refused = await post(origin, 'refused');
      expect(refused.status, String(origin)).toBe(403);
      expect(refused.json.error).toBe('forbidden');
    }
    const accepted = await post('https://hub.example.net', 'accepted');
    expect(accepted.status, accepted.text).toBe(201);
    const names = await pub.hub.database.db.selectFrom('assets').select('name').execute();
    expect(names.map((n) => n.name)).toEqual(['accepted']);
  });
});
