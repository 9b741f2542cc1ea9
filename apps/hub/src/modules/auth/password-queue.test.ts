/**
 * Every bcrypt after start-up shares the sign-in's bounded queue (issue 11, item 6): while junk sign-ins
 * fill it, recovery-code checks (2FA sign-in, disabling 2FA), new recovery codes and passwords set by an
 * admin are refused at once with 429 instead of lining up, and nothing is half done: no code is burned, no
 * failure counted, no user created. TOTP codes need no bcrypt and still work. SQLite only (in-memory queue).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { LoginResult, RecoveryCodes, TotpSetup } from '@svc/protocol';
import { GatedBcrypt, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import {
  createPasswordHasher,
  passwordQueueLimits,
  type PasswordHasher,
} from '../../platform/password-hasher.js';
import { timeStepOf, totpCodeAt, totpPeriodSeconds } from './totp.js';

const ownOrigin = 'http://localhost:80';
const proxy = '10.0.0.1';

function cookieOf(res: InjectResult): string {
  const header = res.headers['set-cookie'];
  const list = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
  return list.find((c) => c.startsWith('svc_session='))?.split(';')[0] ?? '';
}

function expectBusy(res: InjectResult): void {
  expect(res.status, res.text).toBe(429);
  expect(res.json).toMatchObject({ error: 'rate_limited', status: 429 });
  expect(res.headers['retry-after']).toBe('1');
}

describe('bcrypt work beyond the sign-in shares its bounded queue', () => {
  let t: TestHub;
  let bcrypt: GatedBcrypt;
  let passwords: PasswordHasher;
  let junk: Promise<InjectResult>[] = [];
  let clients = 0;

  beforeEach(async () => {
    bcrypt = new GatedBcrypt();
    passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    junk = [];
  });
  afterEach(async () => {
    bcrypt.release();
    await Promise.all(junk);
    await t.close();
  });

  /** A sign-in from an address of its own (the per-account-and-address limit is not what is tested here). */
  function login(username: string, password: string): Promise<InjectResult> {
    clients += 1;
    return t.request('POST', '/api/auth/login', {
      key: null,
      body: { username, password },
      remoteAddress: proxy,
      headers: {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': `198.51.${Math.floor(clients / 250)}.${(clients % 250) + 1}`,
      },
    });
  }

  function asUser(cookie: string, url: string, body?: unknown): Promise<InjectResult> {
    return t.request('POST', url, {
      key: null,
      headers: { cookie, origin: ownOrigin, 'x-forwarded-proto': 'https' },
      ...(body !== undefined ? { body } : {}),
    });
  }

  function codeNow(secret: string): string {
    return totpCodeAt(secret, timeStepOf(Math.floor(t.clock.now().getTime() / 1000)) * totpPeriodSeconds);
  }

  /** Junk sign-ins whose checks are held: the queue is full until release(). */
  async function fillQueue(): Promise<void> {
    bcrypt.hold();
    const bound = passwordQueueLimits.running + passwordQueueLimits.waiting;
    junk = Array.from({ length: bound }, (_, i) => login(`junk-${i}`, 'guess'));
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(bound);
    });
  }

  /** An operator with 2FA on, signed in: its cookie, TOTP secret and recovery codes. */
  async function accountWithTwoFactor() {
    const password = 'tess password 1';
    const created = await t.request('POST', '/api/auth/users', {
      body: { username: 'tess', password, role: 'operator' },
    });
    expect(created.status, created.text).toBe(201);
    const cookie = cookieOf(await login('tess', password));
    const setup = await asUser(cookie, '/api/auth/2fa/setup');
    const { secret } = setup.json.data as TotpSetup;
    const verified = await asUser(cookie, '/api/auth/2fa/verify', { code: codeNow(secret) });
    expect(verified.status, verified.text).toBe(200);
    t.clock.advance(totpPeriodSeconds * 1000);
    const codes = (verified.json.data as RecoveryCodes).recovery_codes;
    return { password, cookie, secret, codes };
  }

  async function challenge(password: string): Promise<string> {
    const res = await login('tess', password);
    expect(res.status, res.text).toBe(200);
    return (res.json.data as LoginResult).challenge_token ?? '';
  }

  function complete(token: string, code: string): Promise<InjectResult> {
    return t.request('POST', '/api/auth/login/2fa', {
      key: null,
      body: { challenge_token: token, code },
      remoteAddress: proxy,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': '192.0.2.1' },
    });
  }

  it('refuses a recovery code at 2FA sign-in while full, burning neither the code nor the challenge', async () => {
    const account = await accountWithTwoFactor();
    const token = await challenge(account.password);
    const other = await challenge(account.password);
    const [code = ''] = account.codes;

    await fillQueue();
    expectBusy(await complete(token, code));
    // A TOTP code needs no bcrypt: it works on another challenge, full queue or not.
    const byTotp = await complete(other, codeNow(account.secret));
    expect(byTotp.status, byTotp.text).toBe(200);
    bcrypt.release();
    await Promise.all(junk);

    const done = await complete(token, code);
    expect(done.status, done.text).toBe(200);
    expect(cookieOf(done)).not.toBe('');
  });

  it('refuses disabling 2FA by recovery code and replacing the codes while full; both work after', async () => {
    const account = await accountWithTwoFactor();
    const [code = ''] = account.codes;

    await fillQueue();
    expectBusy(await asUser(account.cookie, '/api/auth/2fa/disable', { code }));
    expectBusy(
      await asUser(account.cookie, '/api/auth/2fa/recovery-codes', { code: codeNow(account.secret) }),
    );
    bcrypt.release();
    await Promise.all(junk);

    t.clock.advance(totpPeriodSeconds * 1000);
    const replaced = await asUser(account.cookie, '/api/auth/2fa/recovery-codes', {
      code: codeNow(account.secret),
    });
    expect(replaced.status, replaced.text).toBe(200);
    const fresh = (replaced.json.data as RecoveryCodes).recovery_codes;
    const off = await asUser(account.cookie, '/api/auth/2fa/disable', { code: fresh[0] });
    expect(off.status, off.text).toBe(200);
  });

  it('refuses creating a user and resetting a password while full, and changes nothing', async () => {
    const owner = await t.hub.database.db
      .selectFrom('users')
      .select(['id', 'password_hash'])
      .where('username', '=', 'owner')
      .executeTakeFirstOrThrow();
    await fillQueue();
    expectBusy(
      await t.request('POST', '/api/auth/users', {
        body: { username: 'late', password: 'late password 1', role: 'viewer' },
      }),
    );
    expectBusy(
      await t.request('PATCH', `/api/auth/users/${owner.id}`, { body: { password: 'a new password 1' } }),
    );
    const users = await t.hub.database.db.selectFrom('users').select(['username', 'password_hash']).execute();
    expect(users).toEqual([{ username: 'owner', password_hash: owner.password_hash }]);
    bcrypt.release();
    await Promise.all(junk);

    const created = await t.request('POST', '/api/auth/users', {
      body: { username: 'late', password: 'late password 1', role: 'viewer' },
    });
    expect(created.status, created.text).toBe(201);
  });
});
