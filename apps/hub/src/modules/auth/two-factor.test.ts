import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditEvent, LoginResult, RecoveryCodes, TotpSetup, User } from '@svc/protocol';
import { databaseTargets, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import { verifyPassword } from '../../platform/crypto.js';
import {
  enableTwoFactor,
  ownOrigin,
  sessionCookieOf,
  totpCodeNow,
  wrongTotpCode,
} from '../../testing/two-factor-user.js';
import { totpPeriodSeconds } from './totp.js';

const stepMs = totpPeriodSeconds * 1000;

interface Account {
  id: string;
  username: string;
  password: string;
  cookie: string;
}

describe.each(databaseTargets())('two-factor sign-in ($name)', ({ options }) => {
  let t: TestHub;
  let loginCount = 0;

  beforeEach(async () => {
    t = await startTestHub(options);
    loginCount = 0;
  });
  afterEach(async () => {
    await t.close();
  });

  /**
   * Password sign-in. Sign-ins are limited to 10 a minute per account and IP (sessions.test.ts covers that);
   * these tests sign in more often, so each one comes from its own loopback address.
   */
  function login(account: Account): Promise<InjectResult> {
    loginCount++;
    return t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: account.username, password: account.password },
      remoteAddress: `127.0.${Math.floor(loginCount / 250)}.${(loginCount % 250) + 1}`,
    });
  }

  async function newAccount(username = 'tess'): Promise<Account> {
    const password = `${username} password 1`;
    const res = await t.request('POST', '/api/auth/users', {
      body: { username, password, role: 'operator' },
    });
    expect(res.status, res.text).toBe(201);
    const user = res.json.data as User;
    const account = { id: user.id, username, password, cookie: '' };
    const signedIn = await login(account);
    expect(signedIn.status, signedIn.text).toBe(200);
    account.cookie = sessionCookieOf(signedIn) ?? '';
    expect(account.cookie).toMatch(/^svc_session=[a-z2-7]{52}$/);
    return account;
  }

  /** A console request with the account's cookie (and, for mutations, the hub's own Origin). */
  function asUser(
    account: Account,
    method: 'GET' | 'POST',
    url: string,
    body?: unknown,
  ): Promise<InjectResult> {
    return t.request(method, url, {
      key: null,
      headers: { cookie: account.cookie, ...(method === 'POST' ? { origin: ownOrigin } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
  }

  const codeNow = (secret: string, stepOffset = 0) => totpCodeNow(t.clock, secret, stepOffset);
  const wrongCode = (secret: string) => wrongTotpCode(t.clock, secret);

  async function enabled(account: Account): Promise<boolean> {
    const res = await asUser(account, 'GET', '/api/auth/2fa');
    expect(res.status, res.text).toBe(200);
    return (res.json.data as { enabled: boolean }).enabled;
  }

  async function setup(account: Account): Promise<TotpSetup> {
    const res = await asUser(account, 'POST', '/api/auth/2fa/setup');
    expect(res.status, res.text).toBe(200);
    return res.json.data as TotpSetup;
  }

  /** Turns 2FA on, then moves the clock past the step the verification code used. */
  const enable = (account: Account) => enableTwoFactor(t, account.cookie);

  /** Signs in with the password and returns the challenge token 2FA asks for. */
  async function challenge(account: Account): Promise<string> {
    const res = await login(account);
    expect(res.status, res.text).toBe(200);
    const result = res.json.data as LoginResult;
    expect(result.requires_2fa).toBe(true);
    expect(result.challenge_token).toMatch(/^[a-z2-7]{52}$/);
    return result.challenge_token ?? '';
  }

  function complete(token: string, code: string): Promise<InjectResult> {
    return t.request('POST', '/api/auth/login/2fa', { key: null, body: { challenge_token: token, code } });
  }

  async function userRow(id: string) {
    return t.hub.database.db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  }

  async function recoveryRows(userId: string) {
    return t.hub.database.db.selectFrom('recovery_codes').selectAll().where('user_id', '=', userId).execute();
  }

  async function twoFactorSessions(userId: string): Promise<number> {
    const rows = await t.hub.database.db
      .selectFrom('sessions')
      .select('id')
      .where('user_id', '=', userId)
      .where('auth_method', '=', 'password+2fa')
      .execute();
    return rows.length;
  }

  describe('setup', () => {
    it('returns a secret and an otpauth URI; 2FA stays off until a code confirms it', async () => {
      const account = await newAccount();
      const { secret, otpauth_uri } = await setup(account);

      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const uri = new URL(otpauth_uri);
      expect(uri.protocol).toBe('otpauth:');
      expect(uri.searchParams.get('secret')).toBe(secret);
      expect(decodeURIComponent(uri.pathname)).toContain(account.username);

      expect(await enabled(account)).toBe(false);
      const row = await userRow(account.id);
      expect(row.totp_secret).toBeNull();
      // the pending secret is kept sealed as well
      expect(row.totp_pending_secret?.startsWith('v1.')).toBe(true);
      expect(row.totp_pending_secret).not.toContain(secret);

      const again = await login(account);
      expect(again.status).toBe(200);
      expect((again.json.data as LoginResult).requires_2fa).toBe(false);
      expect(sessionCookieOf(again)).not.toBeNull();
    });

    it('refuses a wrong code on verify and stays off', async () => {
      const account = await newAccount();
      const { secret } = await setup(account);

      for (const code of [wrongCode(secret), codeNow(secret, -2), codeNow(secret, 2), 'abcdef']) {
        const res = await asUser(account, 'POST', '/api/auth/2fa/verify', { code });
        expect(res.status, code).toBe(400);
        expect(res.json.error).toBe('validation');
      }
      expect(await enabled(account)).toBe(false);
      expect((await userRow(account.id)).totp_secret).toBeNull();
      expect(await recoveryRows(account.id)).toHaveLength(0);
    });

    it('discards the unverified secret when setup starts again', async () => {
      const account = await newAccount();
      const first = await setup(account);
      const second = await setup(account);
      expect(second.secret).not.toBe(first.secret);

      const old = await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(first.secret) });
      expect(old.status).toBe(400);
      expect(await enabled(account)).toBe(false);

      const current = await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(second.secret) });
      expect(current.status, current.text).toBe(200);
      expect(await enabled(account)).toBe(true);
      expect(t.hub.box.open((await userRow(account.id)).totp_secret ?? '', `totp:${account.id}`)).toBe(
        second.secret,
      );
    });

    it('lets an unverified setup expire after 15 minutes', async () => {
      const account = await newAccount();
      const stale = await setup(account);
      t.clock.advance(15 * 60 * 1000 + 1_000);

      const late = await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(stale.secret) });
      expect(late.status).toBe(409);
      expect(await enabled(account)).toBe(false);
      expect((await userRow(account.id)).totp_pending_secret).toBeNull();

      const fresh = await setup(account);
      t.clock.advance(14 * 60 * 1000);
      const inTime = await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(fresh.secret) });
      expect(inTime.status, inTime.text).toBe(200);
      expect(await enabled(account)).toBe(true);
    });

    it('turns 2FA on with 8 recovery codes, the secret sealed and the codes bcrypt-hashed', async () => {
      const account = await newAccount();
      const { secret } = await setup(account);

      const res = await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(secret) });

      expect(res.status, res.text).toBe(200);
      const codes = (res.json.data as RecoveryCodes).recovery_codes;
      expect(codes).toHaveLength(8);
      expect(new Set(codes).size).toBe(8);
      for (const code of codes) expect(code).toMatch(/^[a-z2-7]{5}-[a-z2-7]{5}$/);
      expect(await enabled(account)).toBe(true);
      expect((await asUser(account, 'GET', '/api/auth/me')).json.data).toMatchObject({ totp_enabled: true });

      const row = await userRow(account.id);
      expect(row.totp_secret?.startsWith('v1.')).toBe(true);
      expect(row.totp_secret).not.toContain(secret);
      expect(row.totp_secret?.toLowerCase()).not.toContain(secret.toLowerCase());
      expect(row.totp_pending_secret).toBeNull();
      // sealed, not scrambled: the hub key opens it to the very secret the user scanned
      expect(t.hub.box.open(row.totp_secret ?? '', `totp:${account.id}`)).toBe(secret);

      const stored = await recoveryRows(account.id);
      expect(stored).toHaveLength(8);
      const dump = JSON.stringify(stored);
      for (const code of codes) {
        expect(dump).not.toContain(code);
        expect(dump).not.toContain(code.replace('-', ''));
      }
      for (const r of stored) {
        expect(r.code_hash.startsWith('$2')).toBe(true);
        expect(r.used_at).toBeNull();
      }
      const matched = await Promise.all(
        codes.map(async (code) =>
          (await Promise.all(stored.map((r) => verifyPassword(code, r.code_hash)))).some(Boolean),
        ),
      );
      expect(matched).toEqual(Array<boolean>(8).fill(true));

      // verifying again, or starting over, is refused while 2FA is on
      t.clock.advance(stepMs);
      expect((await asUser(account, 'POST', '/api/auth/2fa/verify', { code: codeNow(secret) })).status).toBe(
        409,
      );
      expect((await asUser(account, 'POST', '/api/auth/2fa/setup')).status).toBe(409);
    });
  });

  describe('sign-in with a second factor', () => {
    it('answers a correct password with a challenge and no cookie; a TOTP code then opens a session, once', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);
      const sessionsBefore = await t.hub.database.db.selectFrom('sessions').select('id').execute();

      const first = await login(account);
      expect(first.status).toBe(200);
      const result = first.json.data as LoginResult;
      expect(result.requires_2fa).toBe(true);
      expect(result.challenge_token).toMatch(/^[a-z2-7]{52}$/);
      expect(result.user).toBeUndefined();
      expect(sessionCookieOf(first)).toBeNull();
      expect(first.headers['set-cookie']).toBeUndefined();
      expect(await t.hub.database.db.selectFrom('sessions').select('id').execute()).toHaveLength(
        sessionsBefore.length,
      );
      // a wrong password still says nothing about 2FA
      const wrong = await login({ ...account, password: 'not the password' });
      expect(wrong.status).toBe(401);
      expect(wrong.text).not.toContain('challenge');

      const token = result.challenge_token ?? '';
      const done = await complete(token, codeNow(secret));
      expect(done.status, done.text).toBe(200);
      expect(done.json.data).toMatchObject({
        requires_2fa: false,
        user: { id: account.id, auth_method: 'password+2fa', totp_enabled: true },
      });
      const cookie = sessionCookieOf(done);
      expect(cookie).not.toBeNull();
      const me = await asUser({ ...account, cookie: cookie ?? '' }, 'GET', '/api/auth/me');
      expect(me.status).toBe(200);
      expect(me.json.data).toMatchObject({ id: account.id, auth_method: 'password+2fa' });

      // single-use: the same challenge with the next step's code is gone
      t.clock.advance(stepMs);
      const reuse = await complete(token, codeNow(secret));
      expect(reuse.status).toBe(401);
      expect(sessionCookieOf(reuse)).toBeNull();
      expect(await twoFactorSessions(account.id)).toBe(1);
    });

    it('accepts a TOTP code once: not again on a new challenge, nor an older step', async () => {
      const account = await newAccount();
      const { secret } = await setup(account);
      const confirming = codeNow(secret);
      expect((await asUser(account, 'POST', '/api/auth/2fa/verify', { code: confirming })).status).toBe(200);
      // the code that confirmed the setup has been used
      expect((await complete(await challenge(account), confirming)).status).toBe(401);

      t.clock.advance(stepMs);
      const used = codeNow(secret);
      expect((await complete(await challenge(account), used)).status).toBe(200);

      const replay = await complete(await challenge(account), used);
      expect(replay.status).toBe(401);

      // one step on, the used code is now the previous step's (inside the drift window) and still refused
      t.clock.advance(stepMs);
      expect(codeNow(secret, -1)).toBe(used);
      const older = await complete(await challenge(account), used);
      expect(older.status).toBe(401);

      const fresh = await complete(await challenge(account), codeNow(secret));
      expect(fresh.status, fresh.text).toBe(200);
      expect(await twoFactorSessions(account.id)).toBe(2);
    });

    it('expires a challenge after 5 minutes', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);

      const inTime = await challenge(account);
      t.clock.advance(5 * 60 * 1000 - 1_000);
      expect((await complete(inTime, codeNow(secret))).status).toBe(200);

      t.clock.advance(stepMs);
      const late = await challenge(account);
      t.clock.advance(5 * 60 * 1000 + 1);
      const res = await complete(late, codeNow(secret));
      expect(res.status).toBe(401);
      expect(res.json.error).toBe('unauthorized');
      expect(await twoFactorSessions(account.id)).toBe(1);
    });

    it('burns a challenge after 5 wrong codes: the 6th attempt fails even with a valid code', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);
      const token = await challenge(account);

      for (let i = 0; i < 5; i++) {
        const res = await complete(token, wrongCode(secret));
        expect(res.status, `attempt ${i + 1}`).toBe(401);
      }
      const sixth = await complete(token, codeNow(secret));
      expect(sixth.status).toBe(401);
      expect(sessionCookieOf(sixth)).toBeNull();

      // the user is not locked out by 5 failures: a new challenge with the same code works
      const next = await complete(await challenge(account), codeNow(secret));
      expect(next.status, next.text).toBe(200);
    });

    it('pauses 2FA sign-in after 10 wrong codes across challenges, for 15 minutes', async () => {
      const account = await newAccount();
      const { secret, recoveryCodes } = await enable(account);

      for (let c = 0; c < 2; c++) {
        const token = await challenge(account);
        for (let i = 0; i < 5; i++) expect((await complete(token, wrongCode(secret))).status).toBe(401);
      }
      const third = await challenge(account);
      const limited = await complete(third, codeNow(secret));
      expect(limited.status).toBe(429);
      expect(limited.json.error).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      expect(sessionCookieOf(limited)).toBeNull();
      const byRecovery = await complete(await challenge(account), recoveryCodes[0] ?? '');
      expect(byRecovery.status).toBe(429);
      // nor can the signed-in user turn 2FA off by guessing on
      expect((await asUser(account, 'POST', '/api/auth/2fa/disable', { code: codeNow(secret) })).status).toBe(
        429,
      );
      expect(await enabled(account)).toBe(true);
      expect(await twoFactorSessions(account.id)).toBe(0);

      t.clock.advance(15 * 60 * 1000);
      const after = await complete(await challenge(account), codeNow(secret));
      expect(after.status, after.text).toBe(200);
    });

    it('accepts a recovery code once, in any case and without the dash', async () => {
      const account = await newAccount();
      const { recoveryCodes } = await enable(account);
      const [first = '', second = ''] = recoveryCodes;

      const used = await complete(await challenge(account), first.toUpperCase().replace('-', ''));
      expect(used.status, used.text).toBe(200);
      expect(sessionCookieOf(used)).not.toBeNull();
      const again = await complete(await challenge(account), first);
      expect(again.status).toBe(401);

      const withSpacesAndCase = await complete(
        await challenge(account),
        ` ${second.slice(0, 5).toUpperCase()}-${second.slice(6)} `,
      );
      expect(withSpacesAndCase.status, withSpacesAndCase.text).toBe(200);

      const rows = await recoveryRows(account.id);
      expect(rows.filter((r) => r.used_at !== null)).toHaveLength(2);
    });
  });

  describe('single use under concurrency', () => {
    it('lets exactly one of 10 parallel attempts on one challenge with one valid code through', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);
      const token = await challenge(account);
      const code = codeNow(secret);

      const results = await Promise.all(Array.from({ length: 10 }, () => complete(token, code)));

      const ok = results.filter((r) => r.status === 200);
      expect(ok).toHaveLength(1);
      expect(sessionCookieOf(ok[0] as InjectResult)).not.toBeNull();
      for (const r of results.filter((x) => x.status !== 200)) {
        expect([401, 409]).toContain(r.status);
        expect(sessionCookieOf(r)).toBeNull();
      }
      expect(await twoFactorSessions(account.id)).toBe(1);
    });

    it('lets one TOTP code through exactly once across 10 parallel challenges', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);
      const tokens: string[] = [];
      for (let i = 0; i < 10; i++) tokens.push(await challenge(account));
      const code = codeNow(secret);

      const results = await Promise.all(tokens.map((token) => complete(token, code)));

      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => r.status)).toEqual(
        Array<number>(9).fill(401),
      );
      expect(await twoFactorSessions(account.id)).toBe(1);
    });

    it('lets one recovery code through exactly once across 10 parallel challenges', async () => {
      const account = await newAccount();
      const { recoveryCodes } = await enable(account);
      const tokens: string[] = [];
      for (let i = 0; i < 10; i++) tokens.push(await challenge(account));
      const code = recoveryCodes[3] ?? '';

      const results = await Promise.all(tokens.map((token) => complete(token, code)));

      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => r.status)).toEqual(
        Array<number>(9).fill(401),
      );
      expect(await twoFactorSessions(account.id)).toBe(1);
      const rows = await recoveryRows(account.id);
      expect(rows.filter((r) => r.used_at !== null)).toHaveLength(1);
    });

    it('keeps the per-user limit of 10 wrong codes when the guesses arrive in parallel on many challenges', async () => {
      const account = await newAccount();
      const { secret } = await enable(account);
      const tokens: string[] = [];
      for (let i = 0; i < 14; i++) tokens.push(await challenge(account));

      const results = await Promise.all(tokens.map((token) => complete(token, wrongCode(secret))));

      const judged = results.filter((r) => r.status === 401).length;
      expect(judged).toBeLessThanOrEqual(10);
      expect(results.filter((r) => r.status !== 401).map((r) => r.status)).toEqual(
        Array<number>(14 - judged).fill(429),
      );
      expect((await complete(await challenge(account), codeNow(secret))).status).toBe(429);
    });
  });

  describe('recovery codes and disabling', () => {
    it('replaces the recovery codes only with a TOTP code, and the old ones stop working', async () => {
      const account = await newAccount();
      const { secret, recoveryCodes: old } = await enable(account);

      const byRecovery = await asUser(account, 'POST', '/api/auth/2fa/recovery-codes', { code: old[0] });
      expect(byRecovery.status).toBe(400);
      const byWrong = await asUser(account, 'POST', '/api/auth/2fa/recovery-codes', {
        code: wrongCode(secret),
      });
      expect(byWrong.status).toBe(400);

      const res = await asUser(account, 'POST', '/api/auth/2fa/recovery-codes', { code: codeNow(secret) });
      expect(res.status, res.text).toBe(200);
      const fresh = (res.json.data as RecoveryCodes).recovery_codes;
      expect(fresh).toHaveLength(8);
      expect(fresh.filter((c) => old.includes(c))).toEqual([]);
      expect(await recoveryRows(account.id)).toHaveLength(8);

      expect((await complete(await challenge(account), old[1] ?? '')).status).toBe(401);
      expect((await complete(await challenge(account), fresh[0] ?? '')).status).toBe(200);
    });

    it('disables 2FA only with a valid TOTP code or an unused recovery code', async () => {
      const account = await newAccount();
      const { secret, recoveryCodes } = await enable(account);
      const [spent = '', unused = ''] = recoveryCodes;
      expect((await complete(await challenge(account), spent)).status).toBe(200);

      for (const code of [wrongCode(secret), spent, 'aaaaa-aaaaa']) {
        const res = await asUser(account, 'POST', '/api/auth/2fa/disable', { code });
        expect(res.status, code).toBe(400);
        expect(await enabled(account)).toBe(true);
      }

      const off = await asUser(account, 'POST', '/api/auth/2fa/disable', { code: unused });
      expect(off.status, off.text).toBe(200);
      expect(off.json.data).toEqual({ enabled: false });
      expect(await enabled(account)).toBe(false);
      expect(await recoveryRows(account.id)).toHaveLength(0);
      const row = await userRow(account.id);
      expect(row.totp_secret).toBeNull();

      const plain = await login(account);
      expect(plain.status).toBe(200);
      expect((plain.json.data as LoginResult).requires_2fa).toBe(false);
      expect(sessionCookieOf(plain)).not.toBeNull();

      // on again, then off with a TOTP code
      const again = await enable(account);
      const offByTotp = await asUser(account, 'POST', '/api/auth/2fa/disable', {
        code: codeNow(again.secret),
      });
      expect(offByTotp.status, offByTotp.text).toBe(200);
      expect(await enabled(account)).toBe(false);
    });

    it('audits turning 2FA on, replacing the recovery codes and turning it off', async () => {
      const account = await newAccount();
      const published: string[] = [];
      t.hub.events.subscribe(
        (e) => {
          if (e.data.user_id === account.id) published.push(e.data.change);
        },
        { types: ['user.updated'] },
      );
      const { secret } = await enable(account);
      expect(
        (await asUser(account, 'POST', '/api/auth/2fa/recovery-codes', { code: codeNow(secret) })).status,
      ).toBe(200);
      t.clock.advance(stepMs);
      expect((await asUser(account, 'POST', '/api/auth/2fa/disable', { code: codeNow(secret) })).status).toBe(
        200,
      );

      const res = await t.request('GET', `/api/v2/audit/events?target_id=${account.id}&per_page=100`);
      expect(res.status).toBe(200);
      const events = (res.json.data as AuditEvent[]).filter(
        (e) => e.action.startsWith('user.') && e.action !== 'user.created',
      );
      expect(events.map((e) => e.action).sort()).toEqual([
        'user.2fa_disabled',
        'user.2fa_enabled',
        'user.recovery_codes_replaced',
      ]);
      for (const event of events) {
        expect(event).toMatchObject({ actor_type: 'session', actor_id: account.id, target_type: 'user' });
        expect(JSON.stringify(event)).not.toContain(secret);
      }
      expect(published).toEqual(['two_factor_enabled', 'recovery_codes_replaced', 'two_factor_disabled']);
    });
  });
});
