/**
 * Token buckets in memory, one per client IP and one per API key (ARCHITECTURE.md: 600/min per IP,
 * 3000/min per key). A bucket holds a minute's allowance and refills continuously, so a burst can use the
 * whole minute at once but the average never exceeds the limit. Several hub processes share their counts over
 * the cluster bus (shared-rate-limit.ts, decision 0040), behind the same `RateLimit` interface.
 */
export interface RateDecision {
  allowed: boolean;
  /** Seconds until one more request would be allowed (for Retry-After). */
  retryAfterSeconds: number;
}

/** What the request guard, the sign-in throttle and enrollment ask of a limiter. */
export interface RateLimit {
  take(key: string): RateDecision;
  refund(key: string): void;
  /** Buckets held now (memory stays bounded whatever keys callers choose). */
  readonly size: number;
}

export interface RateLimiterOptions {
  now?: () => number;
  /** Buckets kept at once (keys an unauthenticated caller chooses). */
  maxKeys?: number;
}

/** Makes the limiter named `name` (the same name on every process of a cluster). */
export type RateLimiterFactory = (name: string, perMinute: number, options?: RateLimiterOptions) => RateLimit;

/** The limiters of one process alone. */
export const localRateLimiters: RateLimiterFactory = (_name, perMinute, options = {}) =>
  new RateLimiter(perMinute, options.now, options.maxKeys);

interface Bucket {
  tokens: number;
  updatedAt: number;
}

export class RateLimiter implements RateLimit {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refillPerMs: number;
  private lastSweep = 0;

  private lastForcedSweep = 0;

  /**
   * `maxKeys` bounds the buckets kept at once, for keys an unauthenticated caller chooses (usernames,
   * addresses): past it, and after a sweep, a key without a bucket is refused rather than let memory grow.
   * Refusing, not evicting: evicting a bucket that is not full would reset that client's limit.
   */
  constructor(
    private readonly perMinute: number,
    private readonly now: () => number = Date.now,
    private readonly maxKeys = Number.POSITIVE_INFINITY,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.sweep(now);
    const existing = this.buckets.get(key);
    if (!existing && this.buckets.size >= this.maxKeys && !this.hasRoomAfterSweep(now)) {
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(60 / this.perMinute)) };
    }
    const bucket = existing ?? { tokens: this.perMinute, updatedAt: now };
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

  /**
   * Gives back a token taken for something that did not happen after all (an attempt refused further on),
   * or that is not to be counted (a sign-in that succeeded, where only failures count).
   */
  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + 1);
    if (bucket.tokens >= this.perMinute) this.buckets.delete(key);
  }

  /** A sweep out of turn when the map is full, at most once a second so a flood does not sweep per request. */
  private hasRoomAfterSweep(now: number): boolean {
    if (now - this.lastForcedSweep >= 1000 || now < this.lastForcedSweep) {
      this.lastForcedSweep = now;
      this.removeFullBuckets(now);
    }
    return this.buckets.size < this.maxKeys;
  }

  /** Full buckets carry no information: drop them now and then so memory stays bounded by active clients. */
  private sweep(now: number): void {
    if (now - this.lastSweep < 60_000 && now >= this.lastSweep) return;
    this.lastSweep = now;
    this.removeFullBuckets(now);
  }

  private removeFullBuckets(now: number): void {
    for (const [key, bucket] of this.buckets) {
      if (bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.refillPerMs >= this.perMinute)
        this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}
