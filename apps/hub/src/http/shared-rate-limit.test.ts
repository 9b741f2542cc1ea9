/**
 * Rate limits shared by three processes on an in-memory cluster network (decision 0040): requests spread over
 * them get what one process would give plus the documented slack, one process alone keeps the whole limit,
 * Retry-After still says when a request will pass, and what another process sends cannot grow memory.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryClusterNetwork } from '../platform/cluster/cluster-bus.js';
import type { RateLimit } from './rate-limit.js';
import { createSharedRateLimiters, type SharedRateLimiters } from './shared-rate-limit.js';

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

function cluster(perMinute: number, now: () => number, count = 3) {
  const network = createMemoryClusterNetwork();
  const processes: { shared: SharedRateLimiters; limiter: RateLimit }[] = [];
  for (let i = 0; i < count; i++) {
    const bus = network.join(`node_${String(i)}`);
    const shared = createSharedRateLimiters({ bus, processes: () => count, flushMs: 0 });
    processes.push({ shared, limiter: shared.factory('per_key', perMinute, { now }) });
  }
  return {
    network,
    processes,
    async flush() {
      for (const p of processes) p.shared.flush();
      await settle();
    },
  };
}

describe('rate limits shared across processes', () => {
  it('keeps a burst spread over three processes within the limit plus N - 1', async () => {
    const now = 1_000_000;
    const c = cluster(60, () => now);
    let allowed = 0;
    // 900 requests, 30 per interval, round-robin over the three; time stands still (no refill).
    for (let interval = 0; interval < 30; interval++) {
      for (let i = 0; i < 30; i++) {
        if (c.processes[i % 3]!.limiter.take('key_a').allowed) allowed += 1;
      }
      await c.flush();
    }
    expect(allowed).toBeGreaterThanOrEqual(60 - 2);
    expect(allowed).toBeLessThanOrEqual(60 + 2);
  });

  it('lets one process alone spend the whole limit after the first interval', async () => {
    let now = 1_000_000;
    const c = cluster(600, () => now);
    const a = c.processes[0]!.limiter;
    let allowed = 0;
    // A steady 10 requests a second (the limit's pace) for a minute, all on one process.
    for (let interval = 0; interval < 240; interval++) {
      for (let i = 0; i < 3; i++) if (a.take('key_b').allowed) allowed += 1;
      now += 250;
      await c.flush();
    }
    expect(allowed).toBe(720);
  });

  it('answers Retry-After with the wait until the cluster bucket has a token again', async () => {
    let now = 1_000_000;
    const c = cluster(6, () => now);
    for (let round = 0; round < 4; round++) {
      for (const p of c.processes) p.limiter.take('key_c');
      await c.flush();
    }
    const refused = c.processes.map((p) => p.limiter.take('key_c'));
    expect(refused.every((d) => !d.allowed)).toBe(true);
    // 6 a minute: one token every 10 s (the bucket may be in debt by the slack, so up to N - 1 more).
    const waits = refused.map((d) => d.retryAfterSeconds);
    for (const wait of waits) {
      expect(wait).toBeGreaterThanOrEqual(10);
      expect(wait).toBeLessThanOrEqual(30);
    }
    now += Math.max(...waits) * 1000;
    await c.flush();
    expect(c.processes.some((p) => p.limiter.take('key_c').allowed)).toBe(true);
  });

  it('ignores malformed spending and keeps buckets bounded for keys a caller chooses', async () => {
    const network = createMemoryClusterNetwork();
    const evil = network.join('node_evil');
    const bus = network.join('node_good');
    const shared = createSharedRateLimiters({ bus, processes: () => 2, flushMs: 0 });
    const limiter = shared.factory('per_ip', 60, { now: () => 5_000, maxKeys: 100 });
    evil.publish('svc.ratelimit.per_ip', {
      d: [
        ['x'.repeat(10_000), 5],
        ['key', 'lots'],
        ['key', 1e12],
      ],
    });
    evil.publish('svc.ratelimit.per_ip', 'nonsense');
    evil.publish('svc.ratelimit.per_ip', {
      d: Array.from({ length: 5_000 }, (_, i) => [`ip_${String(i)}`, 1]),
    });
    await settle();
    expect(limiter.take('key').allowed).toBe(true);
    // The flood of keys elsewhere took at most nine tenths of the buckets: this process's callers still get one.
    expect(limiter.size).toBeLessThanOrEqual(100);
    shared.close();
  });
});
