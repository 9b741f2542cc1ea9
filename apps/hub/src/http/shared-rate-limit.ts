/**
 * Rate limits that are the cluster's, not each process's (decision 0040). A request never waits on the
 * network: each process decides from its own token bucket per key, which holds the cluster's view, and tells
 * the others what it spent every `flushMs` (250 ms) in one message per limiter; each process takes what the
 * others spent out of its own buckets.
 *
 * What keeps a burst spread over N processes near the limit: within one flush interval a process spends at
 * most its share of a bucket, worked out at the key's first request in the interval. A cold key (no process
 * spent on it lately) is split over the N live processes, and for the interval after too (the others'
 * intervals are not in step, so their first report may still be on its way), counting the shares the others
 * may have spent meanwhile. A warm key is split over this process and those heard spending on it in the last
 * second, after setting aside what they spent in their last report (likely spent again, not exchanged yet).
 * So a burst spread over N processes gets at most the tokens there were plus N - 1; once the spending is
 * exchanged the buckets are empty (or in debt) everywhere and refill at the limit's pace, shared the same way.
 * A key served by one process alone gets its whole bucket from the third interval on, so its sustained rate
 * is the limit's. The cost is caution: a burst's first second may be served below the limit. Slack (decision
 * 0040): N - 1 per key per interval in which the bucket runs out, plus what a lost message carried.
 * Memory is bounded like the local limiter's: at most `maxKeys` buckets (full ones are dropped), and the
 * spending of keys another process sent is ignored when there is no room (nine tenths of it: a flood of keys
 * elsewhere leaves room for this process's own callers); each message carries at most
 * `maxEntries` keys (the rest go in the next one). Messages are validated: another process is untrusted input.
 */
import type { ClusterBus } from '../platform/cluster/cluster-bus.js';
import type { RateDecision, RateLimit, RateLimiterFactory, RateLimiterOptions } from './rate-limit.js';

export interface SharedRateLimitOptions {
  bus: ClusterBus;
  /** How many processes share the limit now (the registry's live nodes), this one included. */
  processes: () => number;
  /** How often spending is exchanged (default 250 ms); 0 leaves it to `flush()` (tests). */
  flushMs?: number;
  /** Keys per message (default 2,000). */
  maxEntries?: number;
}

export interface SharedRateLimiters {
  factory: RateLimiterFactory;
  /** Sends what was spent since the last flush, and starts a new interval. */
  flush(): void;
  close(): void;
}

interface Bucket {
  /** The cluster's view: may go below zero when others spent more than this process knew. */
  tokens: number;
  updatedAt: number;
  /** The interval the allowance below belongs to. */
  interval: number;
  /** The interval it was made in (a key new here is a cold key for this one and the next). */
  created: number;
  /** While cold: what the other processes may have spent of their shares, not reported yet. */
  assumed: number;
  /** Other processes that spent on this key: the interval they were last heard of, and what they spent. */
  peers: Map<string, { seen: number; spent: number }>;
  allowance: number;
  spent: number;
}

const subjectOf = (name: string) => `svc.ratelimit.${name}`;
const maxKeyLength = 512;
/** A process that spent on a key within this many intervals (1 s at 250 ms) still shares it. */
const activeIntervals = 4;
/** Processes remembered per key (a cluster is a handful; the bound keeps a forged sender list small). */
const maxPeers = 32;

class SharedRateLimiter implements RateLimit {
  private readonly buckets = new Map<string, Bucket>();
  /** Spending since the last flush, by key (refunds count back). */
  private readonly unsent = new Map<string, number>();
  private readonly refillPerMs: number;
  private lastSweep = 0;

  constructor(
    private readonly perMinute: number,
    private readonly now: () => number,
    private readonly maxKeys: number,
    private readonly processes: () => number,
    private readonly intervalOf: () => number,
  ) {
    this.refillPerMs = perMinute / 60_000;
  }

  /** `room`: how many buckets may exist for a new one to be made (remote keys leave a tenth for local ones). */
  private bucket(key: string, now: number, room = this.maxKeys): Bucket | null {
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= room) {
        this.sweep(now, true);
        if (this.buckets.size >= room) return null;
      }
      bucket = {
        tokens: this.perMinute,
        updatedAt: now,
        interval: -1,
        created: this.intervalOf(),
        assumed: 0,
        peers: new Map(),
        allowance: 0,
        spent: 0,
      };
      this.buckets.set(key, bucket);
    }
    const elapsed = Math.max(0, now - bucket.updatedAt);
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + elapsed * this.refillPerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  /** A new interval's share, worked out at the key's first request in it (after the reports that came). */
  private rollOver(bucket: Bucket): void {
    const interval = this.intervalOf();
    if (bucket.interval === interval) return;
    bucket.interval = interval;
    bucket.spent = 0;
    bucket.allowance = this.share(bucket, interval);
  }

  /**
   * This process's share of the key's tokens for the interval. A cold key (made in this interval or the one
   * before, no other process heard of: the others' intervals are not in step with this one's, so their first
   * report may still be on its way) is split over every live process. Otherwise over this one and the
   * processes heard spending lately, after setting aside what they spent in their last report: they are
   * likely spending as much again, not yet exchanged.
   */
  private share(bucket: Bucket, interval: number): number {
    let inFlight = 0;
    for (const [peer, { seen, spent }] of bucket.peers) {
      if (interval - seen > activeIntervals) bucket.peers.delete(peer);
      else if (interval - seen <= 1) inFlight += Math.max(0, spent);
    }
    if (bucket.peers.size === 0 && interval - bucket.created <= 1) {
      // Cold: the others may each have spent a share already; count it until their reports say otherwise.
      const n = Math.max(1, this.processes());
      const share = Math.ceil(Math.max(0, bucket.tokens - bucket.assumed) / n);
      bucket.assumed += (n - 1) * share;
      return share;
    }
    return Math.ceil(Math.max(0, bucket.tokens - inFlight) / (1 + bucket.peers.size));
  }

  take(key: string): RateDecision {
    const now = this.now();
    this.sweep(now, false);
    const bucket = this.bucket(key, now);
    if (!bucket) return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(60 / this.perMinute)) };
    this.rollOver(bucket);
    if (bucket.tokens >= 1 && bucket.spent < bucket.allowance) {
      bucket.tokens -= 1;
      bucket.spent += 1;
      this.unsent.set(key, (this.unsent.get(key) ?? 0) + 1);
      return { allowed: true, retryAfterSeconds: 0 };
    }
    // Empty: until one token is back. Tokens left but this interval's share spent: the next interval.
    const wait = bucket.tokens >= 1 ? 1 : Math.ceil((1 - bucket.tokens) / this.refillPerMs / 1000);
    return { allowed: false, retryAfterSeconds: Math.max(1, wait) };
  }

  refund(key: string): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + 1);
    bucket.spent = Math.max(0, bucket.spent - 1);
    this.unsent.set(key, (this.unsent.get(key) ?? 0) - 1);
  }

  /** What another process spent: taken out of the buckets here (debt bounded by one minute's allowance). */
  applyRemote(from: string, entries: [string, number][]): void {
    const now = this.now();
    for (const [key, spent] of entries) {
      const bucket = this.bucket(key, now, Math.floor(this.maxKeys * 0.9));
      if (!bucket) continue;
      if (spent > 0 && (bucket.peers.has(from) || bucket.peers.size < maxPeers))
        bucket.peers.set(from, { seen: this.intervalOf(), spent });
      bucket.tokens = Math.max(-this.perMinute, Math.min(this.perMinute, bucket.tokens - spent));
    }
  }

  /** Up to `max` keys' spending since the last call; the rest stays for the next. */
  drain(max: number): [string, number][] {
    const out: [string, number][] = [];
    for (const [key, spent] of this.unsent) {
      if (out.length >= max) break;
      this.unsent.delete(key);
      if (spent !== 0) out.push([key, spent]);
    }
    return out;
  }

  private sweep(now: number, forced: boolean): void {
    if (!forced && now - this.lastSweep < 60_000 && now >= this.lastSweep) return;
    this.lastSweep = now;
    for (const [key, bucket] of this.buckets) {
      if (this.unsent.has(key)) continue;
      const tokens = bucket.tokens + Math.max(0, now - bucket.updatedAt) * this.refillPerMs;
      if (tokens >= this.perMinute) this.buckets.delete(key);
    }
  }

  get size(): number {
    return this.buckets.size;
  }
}

/** Parses another process's message: `{ d: [[key, count], …] }` with bounded keys and counts. */
function entriesOf(data: unknown, maxEntries: number, perMinute: number): [string, number][] {
  if (typeof data !== 'object' || data === null) return [];
  const list = (data as { d?: unknown }).d;
  if (!Array.isArray(list)) return [];
  const out: [string, number][] = [];
  for (const item of list.slice(0, maxEntries)) {
    if (!Array.isArray(item) || item.length !== 2) continue;
    const [key, count] = item as [unknown, unknown];
    if (typeof key !== 'string' || key.length > maxKeyLength) continue;
    if (typeof count !== 'number' || !Number.isInteger(count) || Math.abs(count) > perMinute * 10) continue;
    out.push([key, count]);
  }
  return out;
}

export function createSharedRateLimiters(options: SharedRateLimitOptions): SharedRateLimiters {
  const { bus } = options;
  const maxEntries = options.maxEntries ?? 2_000;
  const limiters = new Map<string, SharedRateLimiter>();
  const unsubscribes: (() => void)[] = [];
  let interval = 0;

  function flush(): void {
    for (const [name, limiter] of limiters) {
      const d = limiter.drain(maxEntries);
      if (d.length > 0) bus.publish(subjectOf(name), { d });
    }
    interval += 1;
  }

  const timer = (options.flushMs ?? 250) > 0 ? setInterval(flush, options.flushMs ?? 250) : null;
  timer?.unref();

  return {
    factory(name, perMinute, limiterOptions: RateLimiterOptions = {}) {
      const limiter = new SharedRateLimiter(
        perMinute,
        limiterOptions.now ?? Date.now,
        limiterOptions.maxKeys ?? 100_000,
        options.processes,
        () => interval,
      );
      limiters.set(name, limiter);
      unsubscribes.push(
        bus.subscribe(subjectOf(name), (data, meta) => {
          limiter.applyRemote(meta.from, entriesOf(data, maxEntries, perMinute));
        }),
      );
      return limiter;
    },
    flush,
    close() {
      if (timer) clearInterval(timer);
      for (const unsubscribe of unsubscribes) unsubscribe();
    },
  };
}
