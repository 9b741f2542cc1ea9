/**
 * Token buckets in memory, one per client IP and one per API key (ARCHITECTURE.md: 600/min per IP,
 * 3000/min per key). A bucket holds a minute's allowance and refills continuously, so a burst can use the
 * whole minute at once but the average never exceeds the limit. Several hub processes each keep their own.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until one more request would be allowed (for Retry-After). */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;
  private lastSweep = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.sweep(now);
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, updatedAt: now };
    // A wall clock stepping back (NTP) must not drain buckets: elapsed time is never negative.
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + elapsed * this.refillPerMs);
    bucket.updatedAt = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000)),
    };
  }

  /** Full buckets carry no information: drop them now and then so memory stays bounded by active clients. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000 && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.refillPerMs >= this.perMinute)
        this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
