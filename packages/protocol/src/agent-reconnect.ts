/**
 * When an agent tries its hub again after a failed connect or a lost connection (decision 0089): capped
 * exponential backoff with full jitter, a uniformly random delay up to min(cap, base × 2^attempt), so a hub
 * restart does not bring every agent back in the same second.
 *
 * The cap depends on how recently the agent was connected. A hub that was there a moment ago (a restart, an
 * upgrade, a lost link) is most likely back within a minute or two: the ceiling stays at `recentCapMs`, so an
 * agent is never more than that behind a hub that answers again. An agent whose hub has been gone longer, or
 * that has never reached it, waits up to `capMs`, so a fleet spends little on a hub that is really down.
 *
 * The short ceiling is only for a hub that is not there: a refused connect (nothing listens) costs both ends
 * a few microseconds. A hub that answers and does not welcome (refuses the upgrade with 503, times out, closes
 * first) is there and busy: each attempt costs it a TLS handshake, so those failures back off from the base
 * to the long cap, counted apart, and a restarted hub short of CPU is not hammered every 2 s by its fleet.
 *
 * A hub that is busy says when to come back (decision 0102): a 503 with `Retry-After`, each refused agent given
 * a later turn, so the fleet spreads itself over the time the hub needs to admit it. That wait is honoured as
 * given, plus up to `retryAfterJitterMs` (the header counts whole seconds), bounded by `retryAfterCapMs` so a
 * wrong or hostile answer cannot park an agent for long, and never under `baseMs` so a `Retry-After: 0` does
 * not become a tight loop. A busy answer without it backs off as above.
 *
 * One policy for the real agent (apps/agent/src/channel) and the benchmarks' fleet simulator (testkit), both
 * through ReconnectBackoff, so a storm measured is a storm the agents make.
 */

export interface ReconnectPolicy {
  baseMs: number;
  /** The ceiling once the agent has been without a hub for longer than `recentMs` (or never had one). */
  capMs: number;
  /** The ceiling while the agent's last good connection ended less than `recentMs` ago. */
  recentCapMs: number;
  recentMs: number;
  /** Never sooner than this, even when the dice say 0. */
  minMs: number;
  /** A hub's `Retry-After` is honoured up to this. */
  retryAfterCapMs: number;
  /** Added to a hub's `Retry-After`, uniformly up to this: the header's resolution is a second. */
  retryAfterJitterMs: number;
}

/**
 * 10,000 agents at the 4 s ceiling try about 4,900 times a second against a down hub (a refused TCP connect,
 * cheap for both ends) for its first two minutes, and about 670 times a second at the 30 s one after that.
 */
export const agentReconnectPolicy: ReconnectPolicy = {
  baseMs: 1_000,
  capMs: 30_000,
  recentCapMs: 4_000,
  recentMs: 120_000,
  minMs: 100,
  retryAfterCapMs: 120_000,
  retryAfterJitterMs: 1_000,
};

/**
 * The wait a `Retry-After` header asks for, in ms: delta-seconds or an HTTP date (RFC 9110 10.2.3); null when
 * absent or not either. `nowMs` is the epoch clock (for a date).
 */
export function parseRetryAfter(value: string | readonly string[] | undefined, nowMs: number): number | null {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!text) return null;
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1_000;
  const at = Date.parse(text);
  if (!Number.isFinite(at) || !/[a-z]/i.test(text)) return null;
  return Math.max(0, at - nowMs);
}

/** The delay before coming back to a hub that answered busy with `Retry-After: retryAfterMs`. */
export function retryAfterDelay(
  retryAfterMs: number,
  random: () => number,
  policy: ReconnectPolicy = agentReconnectPolicy,
): number {
  const asked = Number.isFinite(retryAfterMs) ? retryAfterMs : policy.retryAfterCapMs;
  const wait = Math.min(policy.retryAfterCapMs, Math.max(policy.baseMs, policy.minMs, asked));
  const roll = Math.min(Math.max(random(), 0), 0.999_999);
  return Math.min(policy.retryAfterCapMs, wait + Math.floor(roll * policy.retryAfterJitterMs));
}

/**
 * The delay before reconnect attempt `attempt` (0 for the first retry). `lostForMs`: how long ago the agent's
 * last good (welcomed) connection ended, null when it has had none since it started. `random` returns [0, 1).
 */
export function reconnectDelay(
  attempt: number,
  lostForMs: number | null,
  random: () => number,
  policy: ReconnectPolicy = agentReconnectPolicy,
): number {
  const isRecent = lostForMs !== null && lostForMs < policy.recentMs;
  const cap = isRecent ? Math.min(policy.capMs, policy.recentCapMs) : policy.capMs;
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 30);
  const ceiling = Math.min(cap, policy.baseMs * 2 ** exponent);
  const roll = Math.min(Math.max(random(), 0), 1);
  return Math.min(cap, Math.max(policy.minMs, Math.floor(roll * ceiling)));
}

/**
 * Why a connection attempt ended: `lost` (a welcomed connection closed), `down` (the connect was refused:
 * nothing listens there) or `busy` (the hub answered but did not welcome: an upgrade refused, a handshake or
 * welcome that timed out, a close before the welcome).
 */
export type ReconnectCause = 'lost' | 'down' | 'busy';

/** One agent's reconnect state: the attempt counts and when it last had a hub. */
export class ReconnectBackoff {
  private downAttempt = 0;
  private busyAttempt = 0;
  private lostAt: number | null = null;

  constructor(
    private readonly policy: ReconnectPolicy = agentReconnectPolicy,
    private readonly random: () => number = Math.random,
  ) {}

  /** The hub welcomed the agent: the next failure starts from attempt 0. */
  welcomed(): void {
    this.downAttempt = 0;
    this.busyAttempt = 0;
  }

  /** The attempt number the next delay of this cause uses (for logs and events). */
  attempt(cause: ReconnectCause): number {
    return cause === 'busy' ? this.busyAttempt : cause === 'lost' ? 0 : this.downAttempt;
  }

  /**
   * The delay before the next attempt, after an attempt or a connection ended for `cause` at `now` (ms).
   * `retryAfterMs`: what a busy hub's `Retry-After` asked for (parseRetryAfter); honoured in place of the busy
   * backoff, which does not grow meanwhile (the hub is pacing its fleet, not failing).
   */
  next(cause: ReconnectCause, now: number, retryAfterMs: number | null = null): number {
    if (cause === 'busy' && retryAfterMs !== null)
      return retryAfterDelay(retryAfterMs, this.random, this.policy);
    if (cause === 'lost') {
      this.lostAt = now;
      this.downAttempt = 0;
    }
    if (cause === 'busy') {
      const delayMs = reconnectDelay(this.busyAttempt, null, this.random, this.policy);
      this.busyAttempt += 1;
      return delayMs;
    }
    const lostForMs = this.lostAt === null ? null : now - this.lostAt;
    const delayMs = reconnectDelay(this.downAttempt, lostForMs, this.random, this.policy);
    this.downAttempt += 1;
    return delayMs;
  }
}
