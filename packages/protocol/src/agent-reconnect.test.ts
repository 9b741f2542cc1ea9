import { describe, expect, it } from 'vitest';
import {
  ReconnectBackoff,
  agentReconnectPolicy,
  parseRetryAfter,
  reconnectDelay,
  retryAfterDelay,
} from './agent-reconnect.js';

const almostOne = () => 0.999_999;
const policy = agentReconnectPolicy;

describe('reconnectDelay', () => {
  it('grows the ceiling exponentially from the base for an agent that never had a hub', () => {
    expect([0, 1, 2, 3, 4].map((attempt) => reconnectDelay(attempt, null, almostOne))).toEqual([
      999, 1999, 3999, 7999, 15_999,
    ]);
  });

  it('is capped at 30 s however many attempts failed, once the hub has been gone a while', () => {
    for (const attempt of [6, 10, 50, 1_000, Number.MAX_SAFE_INTEGER]) {
      for (const lostForMs of [null, policy.recentMs, 3_600_000]) {
        const delay = reconnectDelay(attempt, lostForMs, almostOne);
        expect(delay).toBeLessThanOrEqual(30_000);
        expect(delay).toBeGreaterThan(29_000);
      }
    }
  });

  it('keeps a hub that was there a moment ago within the short ceiling', () => {
    for (const attempt of [0, 2, 3, 10, 1_000]) {
      for (const lostForMs of [0, 5_000, policy.recentMs - 1]) {
        expect(reconnectDelay(attempt, lostForMs, almostOne)).toBeLessThanOrEqual(policy.recentCapMs);
      }
    }
    expect(reconnectDelay(0, 0, almostOne)).toBe(999);
    expect(reconnectDelay(1, 0, almostOne)).toBe(1999);
    expect(reconnectDelay(5, 0, almostOne)).toBe(3999);
  });

  it('spreads delays over the whole range below the ceiling (full jitter)', () => {
    expect(reconnectDelay(4, null, () => 0.5)).toBe(8_000);
    expect(reconnectDelay(4, null, () => 0.25)).toBe(4_000);
    expect(reconnectDelay(5, null, () => 0.5)).toBe(15_000);
    expect(reconnectDelay(5, 1_000, () => 0.5)).toBe(2_000);
    expect(reconnectDelay(5, 1_000, () => 0.05)).toBe(200);
  });

  it('never goes below the floor, even when the dice say 0', () => {
    expect(reconnectDelay(0, null, () => 0)).toBe(policy.minMs);
    expect(reconnectDelay(8, 0, () => 0)).toBe(policy.minMs);
  });

  it('treats a bad random value and a negative attempt safely', () => {
    expect(reconnectDelay(-3, null, () => 0.5)).toBe(500);
    expect(reconnectDelay(3, null, () => 7)).toBe(8_000);
    expect(reconnectDelay(3, null, () => -1)).toBe(policy.minMs);
  });

  it('follows a custom policy, and never lets the short ceiling exceed the long one', () => {
    const custom = { ...policy, baseMs: 10, capMs: 100, recentCapMs: 1_000, recentMs: 50, minMs: 1 };
    expect(reconnectDelay(4, null, almostOne, custom)).toBe(99);
    expect(reconnectDelay(8, 10, almostOne, custom)).toBe(99);
  });
});

describe('ReconnectBackoff', () => {
  const delays = (backoff: ReconnectBackoff, cause: 'down' | 'busy', count: number, now = 0) =>
    Array.from({ length: count }, () => backoff.next(cause, now));

  it('uses the long ceiling for a hub it never had, refused or busy', () => {
    expect(delays(new ReconnectBackoff(policy, almostOne), 'down', 7)).toEqual([
      999, 1999, 3999, 7999, 15_999, 29_999, 29_999,
    ]);
    expect(delays(new ReconnectBackoff(policy, almostOne), 'busy', 3)).toEqual([999, 1999, 3999]);
  });

  it('retries a hub lost a moment ago within the short ceiling while its connects are refused', () => {
    const backoff = new ReconnectBackoff(policy, almostOne);
    expect(backoff.next('lost', 1_000)).toBe(999);
    expect(delays(backoff, 'down', 5, 20_000)).toEqual([1999, 3999, 3999, 3999, 3999]);
    // Two minutes after the loss the outage is no restart any more: the long ceiling.
    expect(backoff.next('down', 1_000 + policy.recentMs)).toBe(29_999);
  });

  it('backs off a hub that answers busy from the base to the long ceiling, counted apart', () => {
    const backoff = new ReconnectBackoff(policy, almostOne);
    backoff.next('lost', 0);
    delays(backoff, 'down', 4, 1_000);
    expect(backoff.attempt('down')).toBe(5);
    expect(delays(backoff, 'busy', 7, 5_000)).toEqual([999, 1999, 3999, 7999, 15_999, 29_999, 29_999]);
    expect(backoff.attempt('busy')).toBe(7);
  });

  it('starts again from attempt 0 after a welcome', () => {
    const backoff = new ReconnectBackoff(policy, almostOne);
    delays(backoff, 'down', 5);
    delays(backoff, 'busy', 5);
    backoff.welcomed();
    expect(backoff.attempt('down')).toBe(0);
    expect(backoff.attempt('busy')).toBe(0);
    expect(backoff.next('busy', 0)).toBe(999);
    expect(backoff.next('down', 0)).toBe(999);
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-30T12:00:00Z');

  it('reads delta-seconds and an HTTP date', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter(['12', '3'], now)).toBe(12_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it('ignores what is neither', () => {
    for (const bad of [undefined, '', '-5', '1.5', 'soon', '9999999999', 'in 5 s']) {
      expect(parseRetryAfter(bad, now)).toBeNull();
    }
  });
});

describe('retryAfterDelay', () => {
  it('waits what the hub asked, plus up to a second of jitter', () => {
    expect(retryAfterDelay(7_000, () => 0)).toBe(7_000);
    expect(retryAfterDelay(7_000, () => 0.5)).toBe(7_500);
    expect(retryAfterDelay(7_000, almostOne)).toBe(7_999);
  });

  it('spreads agents told the same second over that second', () => {
    const rolls = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];
    const delays = rolls.map((roll) => retryAfterDelay(3_000, () => roll));
    expect(new Set(delays).size).toBe(rolls.length);
    for (const delay of delays) {
      expect(delay).toBeGreaterThanOrEqual(3_000);
      expect(delay).toBeLessThan(4_000);
    }
  });

  it('is bounded: never past the cap, never a tight loop on 0', () => {
    expect(retryAfterDelay(86_400_000, almostOne)).toBe(policy.retryAfterCapMs);
    expect(retryAfterDelay(Number.POSITIVE_INFINITY, () => 0)).toBe(policy.retryAfterCapMs);
    expect(retryAfterDelay(Number.NaN, () => 0)).toBe(policy.retryAfterCapMs);
    expect(retryAfterDelay(0, () => 0)).toBe(policy.baseMs);
    expect(retryAfterDelay(-5_000, () => 0)).toBe(policy.baseMs);
    expect(retryAfterDelay(2_000, () => 9)).toBe(2_999);
  });
});

describe('ReconnectBackoff with a Retry-After', () => {
  it("honours a busy hub's Retry-After in place of the busy backoff, which does not grow", () => {
    const backoff = new ReconnectBackoff(policy, () => 0.25);
    expect(backoff.next('busy', 0, 20_000)).toBe(20_250);
    expect(backoff.next('busy', 0, 45_000)).toBe(45_250);
    expect(backoff.attempt('busy')).toBe(0);
    expect(backoff.next('busy', 0)).toBe(250);
    expect(backoff.attempt('busy')).toBe(1);
  });

  it('ignores a Retry-After on a refused connect (nothing answered)', () => {
    const backoff = new ReconnectBackoff(policy, almostOne);
    backoff.next('lost', 0);
    expect(backoff.next('down', 1_000, 60_000)).toBe(1999);
  });
});
