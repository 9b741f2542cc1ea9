/**
 * Rate limits: the token bucket itself with a clock the test moves, then the hub with small limits
 * (the limiter runs on Date.now, so the integration tests stay within one burst and never wait).
 * The limiter is in memory, so the integration tests run on SQLite only.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type InjectResult, type TestHub } from '@svc/testkit';
import { RateLimiter } from './rate-limit.js';

class Clock {
  ms = 1_000_000;
  readonly now = () => this.ms;
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** How many of `count` takes are allowed. */
function takeMany(limiter: RateLimiter, key: string, count: number): number {
  let allowed = 0;
  for (let i = 0; i < count; i++) if (limiter.take(key).allowed) allowed += 1;
  return allowed;
}

describe('RateLimiter', () => {
  it('allows a burst of the whole minute, then refuses with the seconds until the next token', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(6, clock.now);
    expect(takeMany(limiter, 'ip', 6)).toBe(6);
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('refills continuously: one token per 60/limit seconds, and Retry-After shrinks as time passes', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(6, clock.now);
    takeMany(limiter, 'ip', 6);
    clock.advance(4);
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 6 });
    clock.advance(5.5);
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(0.5);
    expect(limiter.take('ip').allowed).toBe(true);
    expect(limiter.take('ip')).toEqual({ allowed: false, retryAfterSeconds: 10 });
  });

  it('never holds more than one minute of tokens, however long the client was idle', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(5, clock.now);
    limiter.take('ip');
    clock.advance(3600);
    expect(takeMany(limiter, 'ip', 20)).toBe(5);
  });

  it('keeps one bucket per key', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(3, clock.now);
    expect(takeMany(limiter, 'a', 4)).toBe(3);
    expect(takeMany(limiter, 'b', 4)).toBe(3);
    expect(limiter.take('a').allowed).toBe(false);
  });

  it('never answers Retry-After below one second', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(600, clock.now); // 10 tokens a second
    takeMany(limiter, 'ip', 600);
    const refused = limiter.take('ip');
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
  });

  it('sweeps full buckets once a minute, so memory is bounded by recently active clients', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(60, clock.now);
    limiter.take('warm-up'); // the first sweep happens here
    for (let i = 0; i < 1000; i++) limiter.take(`client-${i}`);
    clock.advance(30);
    expect(takeMany(limiter, 'busy', 60)).toBe(60);
    expect(limiter.size).toBe(1002);

    clock.advance(31); // one minute after the first sweep: the 1000 one-off clients are full again
    limiter.take('probe');
    expect(limiter.size).toBe(2); // 'busy' (still 29 tokens short) and 'probe'
  });

  it('keeps a bucket that is not full through a sweep: a sweep never resets a limit', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(60, clock.now);
    limiter.take('warm-up');
    clock.advance(30);
    expect(takeMany(limiter, 'busy', 60)).toBe(60);
    clock.advance(31);
    // 31 seconds refilled 31 tokens; a reset bucket would allow 60.
    expect(takeMany(limiter, 'busy', 60)).toBe(31);
  });
});

describe('RateLimiter refunds and its bound on keys', () => {
  it('gives a token back, never above the minute, and forgets a bucket that is full again', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(3, clock.now);
    expect(takeMany(limiter, 'ip', 3)).toBe(3);
    limiter.refund('ip');
    expect(limiter.take('ip').allowed).toBe(true);
    expect(limiter.take('ip').allowed).toBe(false);
    for (let i = 0; i < 5; i++) limiter.refund('ip');
    expect(limiter.size).toBe(0);
    expect(takeMany(limiter, 'ip', 10)).toBe(3);
    limiter.refund('never-seen');
    expect(limiter.size).toBe(1);
  });

  it('refuses a new key once maxKeys buckets are held, and admits it again when a sweep makes room', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(6, clock.now, 100);
    for (let i = 0; i < 100; i++) expect(limiter.take(`client-${i}`).allowed).toBe(true);
    const refused = limiter.take('newcomer');
    expect(refused).toEqual({ allowed: false, retryAfterSeconds: 10 });
    expect(limiter.size).toBe(100);
    // Clients it already holds keep their buckets and limits.
    expect(limiter.take('client-0').allowed).toBe(true);

    clock.advance(2); // a fifth of a token back for everyone: not full yet, nothing can go
    expect(limiter.take('newcomer').allowed).toBe(false);
    clock.advance(60); // full again: the sweep out of turn drops them
    expect(limiter.take('newcomer').allowed).toBe(true);
    expect(limiter.size).toBe(1);
  });
});

describe('RateLimiter when the wall clock steps back (NTP)', () => {
  it('neither refuses a client that has tokens left nor grants extra ones', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(6, clock.now);
    expect(takeMany(limiter, 'ip', 3)).toBe(3);
    clock.advance(-60);
    expect(takeMany(limiter, 'ip', 10)).toBe(3);
    clock.advance(10); // real time passes again: one token per 10 s
    expect(takeMany(limiter, 'ip', 10)).toBe(1);
  });

  it('keeps sweeping, so memory stays bounded', () => {
    const clock = new Clock();
    const limiter = new RateLimiter(60, clock.now);
    limiter.take('warm-up');
    clock.advance(-120);
    for (let i = 0; i < 100; i++) limiter.take(`client-${i}`);
    clock.advance(61);
    limiter.take('probe');
    // The 100 clients are gone; 'warm-up' was last seen "after" now and stays until the clock catches up.
    expect(limiter.size).toBe(2);
  });
});

describe('rate limits in the hub (5/min per IP, 8/min per key)', () => {
  let t: TestHub;
  afterEach(async () => {
    await t.close();
  });

  const proxy = '10.0.0.1';
  /** Through a trusted TLS proxy, so each client gets its own request.ip. */
  const fromClient = (client: string) => ({
    remoteAddress: proxy,
    headers: { 'x-forwarded-proto': 'https', 'x-forwarded-for': client },
  });

  function expectRateLimited(res: InjectResult, maxSeconds: number): void {
    expect(res.status, res.text).toBe(429);
    expect(res.json).toMatchObject({ error: 'rate_limited', status: 429 });
    expect(res.json.request_id).toMatch(/^req_/);
    expect(typeof res.json.message).toBe('string');
    const retryAfter = String(res.headers['retry-after']);
    expect(retryAfter).toMatch(/^\d+$/);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(retryAfter)).toBeLessThanOrEqual(maxSeconds);
  }

  async function start(): Promise<TestHub> {
    return startTestHub({
      rateLimit: { enabled: true, perIpPerMinute: 5, perKeyPerMinute: 8 },
      env: { SVC_TRUSTED_PROXIES: proxy },
    });
  }

  it('answers the 6th request from one IP with 429 rate_limited and Retry-After, and does not process it', async () => {
    t = await start();
    for (let i = 1; i <= 5; i++) {
      const res = await t.request('POST', '/api/v2/assets', { body: { name: `burst-${i}` } });
      expect(res.status, `request ${i}: ${res.text}`).toBe(201);
    }
    const sixth = await t.request('POST', '/api/v2/assets', { body: { name: 'burst-6' } });
    expectRateLimited(sixth, 12); // 5/min: one token every 12 s

    // Another client still gets through, and sees that the 6th asset was never created.
    const other = await t.request('GET', '/api/v2/search?q=burst-6', fromClient('198.51.100.7'));
    expect(other.status, other.text).toBe(200);
    expect(other.json.data).toEqual([]);
  });

  it('applies the per-key limit across IPs, and the per-IP limit across keys', async () => {
    t = await start();
    // Two keys made by the owner from 127.0.0.1 (2 of that IP's 5 requests).
    const key = (await t.createKey({ role: 'operator', scopes: ['*'] })).raw_key;
    const other = (await t.createKey({ role: 'operator', scopes: ['*'] })).raw_key;
    const first = fromClient('203.0.113.9');
    const second = fromClient('198.51.100.7');

    for (let i = 0; i < 5; i++)
      expect((await t.request('GET', '/api/v2/whoami', { key, ...first })).status).toBe(200);
    // First client: out of IP budget (the key had 3 left and is not charged for a request refused per IP).
    expectRateLimited(await t.request('GET', '/api/v2/whoami', { key, ...first }), 12);

    // Second client, same key: the key's remaining 3, then the key's limit, whatever the IP.
    for (let i = 0; i < 3; i++)
      expect((await t.request('GET', '/api/v2/whoami', { key, ...second })).status).toBe(200);
    expectRateLimited(await t.request('GET', '/api/v2/whoami', { key, ...second }), 8); // 8/min: every 7.5 s

    // The second client has one request of its own budget left, for another key; then it is out too.
    expect((await t.request('GET', '/api/v2/whoami', { key: other, ...second })).status).toBe(200);
    expectRateLimited(await t.request('GET', '/api/v2/whoami', { key: other, ...second }), 12);
  });

  it('counts invalid keys against the IP, so guessing keys is slowed down', async () => {
    t = await start();
    const guesses = [
      `svc_abcd_${'a'.repeat(52)}`,
      `svc_abcd_${'b'.repeat(52)}`,
      'not-a-key',
      'svc_x',
      `svc_wxyz_${'c'.repeat(52)}`,
    ];
    for (const guess of guesses) {
      const res = await t.request('GET', '/api/v2/whoami', { key: guess, ...fromClient('203.0.113.9') });
      expect(res.status).toBe(401);
    }
    // Further guesses are refused before the key is even looked at…
    expectRateLimited(
      await t.request('GET', '/api/v2/whoami', {
        key: `svc_abcd_${'d'.repeat(52)}`,
        ...fromClient('203.0.113.9'),
      }),
      12,
    );
    // …and so is the valid key from that address, while another address is unaffected.
    expectRateLimited(await t.request('GET', '/api/v2/whoami', fromClient('203.0.113.9')), 12);
    expect((await t.request('GET', '/api/v2/whoami', fromClient('198.51.100.7'))).status).toBe(200);
  });

  it('applies no limit when rate limits are switched off (the harness default)', async () => {
    t = await startTestHub();
    for (let i = 0; i < 30; i++) expect((await t.request('GET', '/api/v2/whoami')).status).toBe(200);
  });
});
