import { describe, expect, it } from 'vitest';
import { createChannelFailureLimiter } from './channel-failures.js';

describe('channel failure limiter', () => {
  it('blocks an address after its failures for the rest of its minute, then lets it try again', () => {
    let time = 0;
    const limiter = createChannelFailureLimiter({ failuresPerMinute: 3, now: () => time });
    for (let i = 0; i < 3; i++) {
      expect(limiter.retryAfterSeconds('203.0.113.9')).toBe(0);
      limiter.recordFailure('203.0.113.9');
    }
    time = 20_000;
    expect(limiter.retryAfterSeconds('203.0.113.9')).toBe(40);
    expect(limiter.retryAfterSeconds('198.51.100.1')).toBe(0);
    time = 60_000;
    expect(limiter.retryAfterSeconds('203.0.113.9')).toBe(0);
  });

  it('counts a whole IPv6 /64 as one address', () => {
    const limiter = createChannelFailureLimiter({ failuresPerMinute: 2, now: () => 0 });
    limiter.recordFailure('2001:db8:1:2::1');
    limiter.recordFailure('2001:db8:1:2::ffff');
    expect(limiter.retryAfterSeconds('2001:db8:1:2:abcd::7')).toBeGreaterThan(0);
    expect(limiter.retryAfterSeconds('2001:db8:1:3::1')).toBe(0);
  });

  it('keeps at most its bound of addresses, forgetting the oldest', () => {
    const limiter = createChannelFailureLimiter({ failuresPerMinute: 1, maxAddresses: 100, now: () => 0 });
    for (let i = 0; i < 5_000; i++) limiter.recordFailure(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBe(100);
    expect(limiter.retryAfterSeconds('10.0.0.0')).toBe(0);
    expect(limiter.retryAfterSeconds(`10.0.${4_999 >> 8}.${4_999 & 255}`)).toBeGreaterThan(0);
  });
});
