import fs from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OwnerTokenCreated, SessionUser } from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';

// inject() sends this Host; a same-origin console request carries its origin.
const ownOrigin = 'http://localhost:80';

function sessionCookie(res: InjectResult): string {
  const header = res.headers['set-cookie'];
  const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  const cookie = all.find((c) => c.startsWith('svc_session='));
  if (!cookie) throw new Error(`no session cookie: ${res.text}`);
  return cookie.split(';')[0] ?? '';
}

describe.each(databaseTargets())("the owner's first run ($name)", ({ options }) => {
  let t: TestHub;

  beforeEach(async () => {
    t = await startTestHub({ ...options, keepFirstRun: true });
  });
  afterEach(async () => {
    await t.close();
  });

  const asCookie = (cookie: string, method: string, url: string, body?: unknown) =>
    t.request(method, url, {
      key: null,
      headers: { cookie, origin: ownOrigin },
      ...(body !== undefined ? { body } : {}),
    });

  async function signIn(password: string): Promise<{ cookie: string; user: SessionUser }> {
    const res = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password },
    });
    expect(res.status, res.text).toBe(200);
    return { cookie: sessionCookie(res), user: (res.json.data as { user: SessionUser }).user };
  }

  it('lets the generated password do nothing but choose a new one, then deletes the file', async () => {
    const file = t.hub.owner.credentialsPath;
    expect(fs.existsSync(file)).toBe(true);
    const { cookie, user } = await signIn(t.ownerPassword);
    expect(user.must_change_password).toBe(true);

    // Anything else is refused until the password changes: reads, key creation, the owner token.
    for (const [method, url] of [
      ['GET', '/api/v2/whoami'],
      ['GET', '/api/v2/assets'],
      ['POST', '/api/v2/keys'],
      ['POST', '/api/auth/owner-token'],
      ['POST', '/api/auth/2fa/setup'],
    ] as const) {
      const res = await asCookie(cookie, method, url, method === 'POST' ? {} : undefined);
      expect(res.status, `${method} ${url}`).toBe(403);
      expect(res.json.error).toBe('password_change_required');
    }
    const me = await asCookie(cookie, 'GET', '/api/auth/me');
    expect(me.status).toBe(200);
    expect(me.json.data).toMatchObject({ must_change_password: true });

    const wrong = await asCookie(cookie, 'POST', '/api/auth/password', {
      current_password: `${t.ownerPassword}x`,
      new_password: 'a brand new passphrase',
    });
    expect(wrong.status).toBe(400);
    expect(fs.existsSync(file)).toBe(true);
    const short = await asCookie(cookie, 'POST', '/api/auth/password', {
      current_password: t.ownerPassword,
      new_password: 'short',
    });
    expect(short.status).toBe(400);

    const changed = await asCookie(cookie, 'POST', '/api/auth/password', {
      current_password: t.ownerPassword,
      new_password: 'a brand new passphrase',
    });
    expect(changed.status, changed.text).toBe(200);
    expect(fs.existsSync(file)).toBe(false);
    const whoami = await asCookie(cookie, 'GET', '/api/v2/whoami');
    expect(whoami.status, whoami.text).toBe(200);

    // The generated password is dead; the new one signs in without conditions.
    const old = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    expect(old.status).toBe(401);
    const again = await signIn('a brand new passphrase');
    expect(again.user.must_change_password).toBe(false);
  });

  it('shows the owner token once; a new one revokes the last; only the signed-in owner may ask', async () => {
    const { cookie } = await signIn(t.ownerPassword);
    await asCookie(cookie, 'POST', '/api/auth/password', {
      current_password: t.ownerPassword,
      new_password: 'a brand new passphrase',
    });
    const first = await asCookie(cookie, 'POST', '/api/auth/owner-token', {});
    expect(first.status, first.text).toBe(200);
    const token = first.json.data as OwnerTokenCreated;
    const who = await t.request('GET', '/api/v2/whoami', { key: token.raw_key });
    expect(who.status).toBe(200);
    expect(who.json.data).toMatchObject({ role: 'owner', auth_type: 'api_key' });
    // Not readable again anywhere: the key list shows the prefix, never the key.
    const listed = await t.request('GET', '/api/v2/keys', { key: token.raw_key });
    expect(listed.text).not.toContain(token.raw_key);

    // A key, even the owner's own token, cannot mint another.
    const byKey = await t.request('POST', '/api/auth/owner-token', { key: token.raw_key, body: {} });
    expect(byKey.status).toBe(403);

    const second = await asCookie(cookie, 'POST', '/api/auth/owner-token', {});
    expect(second.status).toBe(200);
    expect((second.json.data as OwnerTokenCreated).revoked).toBe(1);
    expect((await t.request('GET', '/api/v2/whoami', { key: token.raw_key })).status).toBe(401);
    const newKey = (second.json.data as OwnerTokenCreated).raw_key;
    expect((await t.request('GET', '/api/v2/whoami', { key: newKey })).status).toBe(200);

    // An admin's session cannot make the owner token.
    const admin = await t.request('POST', '/api/auth/users', {
      key: newKey,
      body: { username: 'alice', password: 'alice password 1', role: 'admin' },
    });
    expect(admin.status, admin.text).toBe(201);
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'alice', password: 'alice password 1' },
    });
    const refused = await asCookie(sessionCookie(login), 'POST', '/api/auth/owner-token', {});
    expect(refused.status).toBe(403);
  });
});
