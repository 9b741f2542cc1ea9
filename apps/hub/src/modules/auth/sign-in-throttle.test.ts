/**
 * Sign-in throttling as an attacker meets it (issue 11, item 6): many usernames from one address, one
 * username from many addresses (through a trusted proxy's X-Forwarded-For), and a flood of concurrent junk
 * sign-ins against the bounded bcrypt queue, whose checks the test holds so the queue's state is exact.
 * The throttles are in memory, so the hub tests run on SQLite only.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatedBcrypt, startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import { createPasswordHasher, passwordQueueLimits } from '../../platform/password-hasher.js';
import { addressKey, createSignInThrottle, signInLimits } from './sign-in-throttle.js';
import { createLoginService } from './login.service.js';

const proxy = '10.0.0.1';

function expectRateLimited(res: InjectResult, maxSeconds: number): void {
  expect(res.status, res.text).toBe(429);
  expect(res.json).toMatchObject({ error: 'rate_limited', status: 429 });
  expect(res.json.request_id).toMatch(/^req_/);
  const retryAfter = String(res.headers['retry-after']);
  expect(retryAfter).toMatch(/^\d+$/);
  expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
  expect(Number(retryAfter)).toBeLessThanOrEqual(maxSeconds);
  expect(String(res.headers['set-cookie'] ?? '')).not.toContain('svc_session=');
}

describe('addressKey', () => {
  it('counts an IPv6 client by its /64 (platform/ip-address.ts), and no address as one key', () => {
    expect(addressKey('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(addressKey(null)).toBe('');
  });
});

describe('sign-in throttle memory', () => {
  it('holds at most maxKeys buckets per limiter, however many usernames and addresses are tried', () => {
    let ms = 1_000_000;
    const throttle = createSignInThrottle(() => ms);
    let refused = 0;
    const attempts = signInLimits.maxKeys + 5_000;
    for (let i = 0; i < attempts; i++) {
      try {
        throttle.admit(`user-${i}`, `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`).finish('failed');
      } catch {
        refused += 1;
      }
    }
    const sizes = throttle.sizes();
    expect(Math.max(sizes.pair, sizes.address, sizes.username, sizes.blocked)).toBeLessThanOrEqual(
      signInLimits.maxKeys,
    );
    expect(refused).toBe(5_000);

    // A minute later every bucket has refilled: the sweep drops them and new clients are admitted again.
    ms += 61_000;
    expect(() => {
      throttle.admit('late-user', '192.0.2.1').finish('failed');
    }).not.toThrow();
    expect(throttle.sizes().username).toBe(1);
  });

  it('keeps no bucket for a sign-in that succeeded or was never checked, beyond the per-account one', () => {
    const throttle = createSignInThrottle(() => 1_000_000);
    throttle.admit('alice', '192.0.2.1').finish('succeeded');
    throttle.admit('bob', '192.0.2.2').finish('not_checked');
    expect(throttle.sizes()).toEqual({ pair: 1, address: 0, username: 0, inFlight: 0, known: 1, blocked: 0 });
  });
});

describe('a refused sign-in does no work', () => {
  it('never looks the user up, runs bcrypt or writes the audit log for an address whose failures are used up', async () => {
    let ms = 1_000_000;
    const work = { lookups: 0, checks: 0, audits: 0 };
    const unused = () => {
      throw new Error('not used by a refused sign-in');
    };
    const login = createLoginService({
      clock: { now: () => new Date(ms) },
      users: {
        accountByUsername: () => {
          work.lookups += 1;
          return Promise.resolve(undefined);
        },
        account: unused,
      },
      passwords: {
        verify: () => {
          work.checks += 1;
          return Promise.resolve(false);
        },
        decoyHash: () => Promise.resolve('$2b$04$decoy'),
        hash: unused,
        hashAll: unused,
        verifyAny: unused,
        inQueue: 0,
      },
      audit: { record: unused, recordIntent: unused } as never,
      db: { transaction: unused } as never,
      sessions: {} as never,
      twoFactor: {} as never,
    });
    const meta = { ip: '203.0.113.9', userAgent: null, requestId: 'req_test' };
    for (let i = 0; i < signInLimits.failuresPerAddress; i++)
      await expect(login.login(`user-${i}`, 'guess', meta)).rejects.toMatchObject({ code: 'unauthorized' });
    expect(work).toEqual({
      lookups: signInLimits.failuresPerAddress,
      checks: signInLimits.failuresPerAddress,
      audits: 0,
    });
    expect(login.refuseEarly(meta.ip)).toBeNull();

    ms += 1; // the next attempt finds the address's failures used up
    await expect(login.login('owner', 'right', meta)).rejects.toMatchObject({ code: 'rate_limited' });
    const early = login.refuseEarly(meta.ip);
    expect(early).toMatchObject({ code: 'rate_limited' });
    expect(early?.message).toMatch(/from this address/);
    await expect(login.login('someone', 'guess', meta)).rejects.toMatchObject({ code: 'rate_limited' });
    expect(work.lookups + work.checks).toBe(2 * signInLimits.failuresPerAddress);
    // Another address is not held back, and the address is let through once a failure's token is back.
    expect(login.refuseEarly('198.51.100.7')).toBeNull();
    ms += 60_000;
    expect(login.refuseEarly(meta.ip)).toBeNull();
  });
});

describe('sign-in throttling in the hub', () => {
  let t: TestHub;
  afterEach(async () => {
    await t.close();
  });

  /** Through the trusted TLS proxy, so each sign-in comes from the address the test names. */
  function login(username: string, password: string, client: string) {
    return t.request('POST', '/api/auth/login', {
      key: null,
      body: { username, password },
      remoteAddress: proxy,
      headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': client },
    });
  }

  it(`throttles one address trying 40 usernames after ${String(signInLimits.failuresPerAddress)} failures`, async () => {
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy } });
    const attacker = '203.0.113.9';
    const statuses: number[] = [];
    let limited: InjectResult | null = null;
    for (let i = 0; i < 40; i++) {
      const res = await login(`user-${i}`, 'guess', attacker);
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses.slice(0, signInLimits.failuresPerAddress)).toEqual(
      Array<number>(signInLimits.failuresPerAddress).fill(401),
    );
    expect(new Set(statuses.slice(signInLimits.failuresPerAddress))).toEqual(new Set([429]));
    if (!limited) throw new Error('never throttled');
    expectRateLimited(limited, 60);
    expect(limited.json.message).toMatch(/from this address/);

    // The address is held back whoever it names, the owner included; another address is not.
    expectRateLimited(await login('owner', t.ownerPassword, attacker), 60);
    expect((await login('owner', t.ownerPassword, '198.51.100.7')).status).toBe(200);
    // IPv6: the attacker's neighbours in the same /64 are the same client.
    for (let i = 0; i < signInLimits.failuresPerAddress; i++)
      expect((await login(`v6-${i}`, 'guess', `2001:db8:1:2::${(i + 1).toString(16)}`)).status).toBe(401);
    expectRateLimited(await login('v6-next', 'guess', '2001:db8:1:2:ffff::1'), 60);
  });

  it('counts only failures per address: a person signing in correctly is never held back by it', async () => {
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy } });
    const office = '192.0.2.50';
    for (let i = 0; i < signInLimits.failuresPerAddress - 1; i++)
      expect((await login(`user-${i}`, 'guess', office)).status).toBe(401);
    // Right passwords give their token back; the one failure left is still there afterwards.
    for (let i = 0; i < 5; i++) expect((await login('owner', t.ownerPassword, office)).status).toBe(200);
    expect((await login('user-last', 'guess', office)).status).toBe(401);
    expectRateLimited(await login('user-over', 'guess', office), 60);
  });

  it(`throttles 40 wrong passwords for one user from 40 addresses after ${String(signInLimits.failuresPerUsername)}`, async () => {
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy } });
    const statuses: number[] = [];
    let limited: InjectResult | null = null;
    for (let i = 0; i < 40; i++) {
      const res = await login('owner', `guess-${i}`, `198.51.100.${i + 1}`);
      statuses.push(res.status);
      if (res.status === 429) limited ??= res;
    }
    expect(statuses.slice(0, signInLimits.failuresPerUsername)).toEqual(
      Array<number>(signInLimits.failuresPerUsername).fill(401),
    );
    expect(new Set(statuses.slice(signInLimits.failuresPerUsername))).toEqual(new Set([429]));
    if (!limited) throw new Error('never throttled');
    expectRateLimited(limited, 60);
    expect(limited.json.message).toMatch(/for this account/);

    // The lock-out is the price: the right password from a fresh address is refused too, for now…
    expectRateLimited(await login('owner', t.ownerPassword, '192.0.2.200'), 60);
    // …other accounts are not affected (an unknown one answers as before)…
    expect((await login('someone-else', 'guess', '192.0.2.201')).status).toBe(401);
    // …and once the attack stops, a few seconds give the owner a token back.
    t.clock.advance(60_000 / signInLimits.failuresPerUsername + 1);
    expect((await login('owner', t.ownerPassword, '192.0.2.200')).status).toBe(200);
  });

  it('counts unknown usernames like known ones, so a refusal tells nothing about which accounts exist', async () => {
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy } });
    const known: number[] = [];
    const unknown: number[] = [];
    for (let i = 0; i < signInLimits.failuresPerUsername + 1; i++) {
      known.push((await login('owner', 'guess', `198.51.100.${i + 1}`)).status);
      unknown.push((await login('nobody-here', 'guess', `198.51.101.${i + 1}`)).status);
    }
    expect(unknown).toEqual(known);
    expect(known.at(-1)).toBe(429);
  });

  it('turns concurrent junk beyond the bcrypt queue away at once with 429, while a sign-in in the queue succeeds', async () => {
    const bcrypt = new GatedBcrypt();
    const passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    bcrypt.compares = 0; // the harness's own first sign-in (the owner's new password) is not under test
    bcrypt.hold();
    const bound = passwordQueueLimits.running + passwordQueueLimits.waiting;

    // The owner's sign-in is first in; junk from other addresses fills the rest of the queue.
    const ownerSignIn = login('owner', t.ownerPassword, '192.0.2.10');
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(1);
    });
    const queuedJunk = Array.from({ length: bound - 1 }, (_, i) =>
      login(i % 2 ? 'owner' : `junk-${i}`, 'guess', `203.0.113.${i + 1}`),
    );
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(bound);
    });

    // With every check still held, 40 more junk sign-ins (known and unknown names, 40 addresses) are all
    // answered: 429 with Retry-After, none of them queued or checked.
    const flood = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        login(i % 4 ? `flood-${i}` : 'owner', 'guess', `198.51.100.${i + 1}`),
      ),
    );
    for (const res of flood) {
      expectRateLimited(res, 1);
      expect(res.json.message).toMatch(/busy checking passwords/);
    }
    expect(passwords.inQueue).toBe(bound);
    expect(bcrypt.compares).toBe(passwordQueueLimits.running);

    bcrypt.release();
    const owner = await ownerSignIn;
    expect(owner.status, owner.text).toBe(200);
    expect(String(owner.headers['set-cookie'])).toContain('svc_session=');
    for (const res of await Promise.all(queuedJunk)) expect(res.status).toBe(401);
    expect(bcrypt.compares).toBe(bound);
    expect(passwords.inQueue).toBe(0);

    // Turned-away attempts were not counted as failures: the flood's addresses can still try (and fail).
    expect((await login('flood-1', 'guess', '198.51.100.2')).status).toBe(401);
    // The junk stopped: the owner signs in again at once.
    expect((await login('owner', t.ownerPassword, '192.0.2.10')).status).toBe(200);
  });

  it('lets a flood from one address hold one place in the bcrypt queue: the owner elsewhere gets in', async () => {
    const bcrypt = new GatedBcrypt();
    const passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    bcrypt.compares = 0; // the harness's own first sign-in (the owner's new password) is not under test
    bcrypt.hold();

    const first = login('junk-0', 'guess', '203.0.113.9');
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(1);
    });
    // 30 more at once from that address (and its IPv6 /64 neighbours would be the same): none gets in line.
    const flood = await Promise.all(
      Array.from({ length: 30 }, (_, i) => login(`junk-${i + 1}`, 'guess', '203.0.113.9')),
    );
    for (const res of flood) {
      expectRateLimited(res, 1);
      expect(res.json.message).toMatch(/being checked/);
    }
    expect(passwords.inQueue).toBe(1);

    const owner = login('owner', t.ownerPassword, '192.0.2.10');
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(2);
    });
    bcrypt.release();
    expect((await owner).status).toBe(200);
    expect((await first).status).toBe(401);
    // Once its check is done the address may try again: the refusals above were not counted as failures.
    expect((await login('junk-31', 'guess', '203.0.113.9')).status).toBe(401);
  });

  it('keeps a place in the full queue for an address that signed in before, and for no other', async () => {
    const bcrypt = new GatedBcrypt();
    const passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    bcrypt.compares = 0; // the harness's own first sign-in (the owner's new password) is not under test
    const home = '192.0.2.10';
    expect((await login('owner', t.ownerPassword, home)).status).toBe(200);

    // A flood from many addresses fills the ordinary places.
    bcrypt.hold();
    const bound = passwordQueueLimits.running + passwordQueueLimits.waiting;
    const junk = Array.from({ length: bound }, (_, i) => login(`junk-${i}`, 'guess', `203.0.113.${i + 1}`));
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(bound);
    });
    // The right password from a new address is turned away; from home it gets a reserved place.
    expectRateLimited(await login('owner', t.ownerPassword, '192.0.2.99'), 1);
    const fromHome = login('owner', t.ownerPassword, home);
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(bound + 1);
    });
    expectRateLimited(await login('junk-late', 'guess', '203.0.113.200'), 1);

    bcrypt.release();
    expect((await fromHome).status).toBe(200);
    for (const res of await Promise.all(junk)) expect(res.status).toBe(401);
  });

  it('checks an unknown user with one bcrypt compare through the queue, as a known one', async () => {
    const bcrypt = new GatedBcrypt();
    const passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    bcrypt.compares = 0; // the harness's own first sign-in (the owner's new password) is not under test
    expect((await login('owner', 'guess', '192.0.2.1')).status).toBe(401);
    expect(bcrypt.compares).toBe(1);
    expect((await login('nobody-here', 'guess', '192.0.2.1')).status).toBe(401);
    expect(bcrypt.compares).toBe(2);
  });

  it('answers a throttled address before reading its body: no bcrypt, no audit row, whatever it sends', async () => {
    const bcrypt = new GatedBcrypt();
    const passwords = createPasswordHasher({ cost: 4, bcrypt: bcrypt.functions });
    t = await startTestHub({ env: { SVC_TRUSTED_PROXIES: proxy }, passwords });
    const attacker = '203.0.113.9';
    const auditRows = async () =>
      (await t.hub.database.db.selectFrom('audit_events').select('id').execute()).length;
    for (let i = 0; i < signInLimits.failuresPerAddress; i++)
      expect((await login(i < 5 ? 'owner' : `user-${i}`, 'guess', attacker)).status).toBe(401);
    // The sign-in that finds the failures used up is refused by the throttle in full (it names a username).
    expectRateLimited(await login('user-next', 'guess', attacker), 60);
    bcrypt.compares = 0;
    const audited = await auditRows();

    const send = (rawBody: string) =>
      t.request('POST', '/api/auth/login', {
        key: null,
        rawBody,
        remoteAddress: proxy,
        headers: {
          'x-forwarded-proto': 'https',
          'x-forwarded-for': attacker,
          'content-type': 'application/json',
        },
      });
    // A body that is not JSON, one the schema refuses, and the owner's right password: all 429 (not 400, not
    // 200), because the answer comes before the body is parsed or validated, the user looked up or bcrypt run.
    for (const body of [
      '{"username": "owner", "password": ',
      '{"user": 1}',
      JSON.stringify({ username: 'owner', password: t.ownerPassword }),
    ]) {
      const res = await send(body);
      expectRateLimited(res, 60);
      expect(res.json.message).toMatch(/from this address/);
    }
    expect(bcrypt.compares).toBe(0);
    expect(await auditRows()).toBe(audited);

    // A check under way from an address refuses the next one from it the same way, before its body.
    bcrypt.hold();
    const first = login('junk', 'guess', '198.51.100.20');
    await vi.waitFor(() => {
      expect(passwords.inQueue).toBe(1);
    });
    const second = await t.request('POST', '/api/auth/login', {
      key: null,
      rawBody: '{not json',
      remoteAddress: proxy,
      headers: {
        'x-forwarded-proto': 'https',
        'x-forwarded-for': '198.51.100.20',
        'content-type': 'application/json',
      },
    });
    expectRateLimited(second, 1);
    expect(second.json.message).toMatch(/being checked/);
    bcrypt.release();
    expect((await first).status).toBe(401);
  });
});
