/**
 * Reconnect delays: capped exponential backoff with full jitter (a uniformly random delay up to
 * min(cap, base × 2^attempt)), so a hub restart does not bring every agent back in the same second.
 */

export interface BackoffPolicy {
  baseMs: number;
  capMs: number;
  /** Never sooner than this, even when the dice say 0. */
  minMs: number;
  /** A connection that lasted this long counts as healthy: the next failure starts from attempt 0. */
  resetAfterMs: number;
}

export const defaultBackoff: BackoffPolicy = {
  baseMs: 1_000,
  capMs: 30_000,
  minMs: 100,
  resetAfterMs: 30_000,
};

/** The delay before reconnect attempt `attempt` (0 for the first retry); `random` returns [0, 1). */
export function nextDelay(
  attempt: number,
  random: () => number,
  policy: BackoffPolicy = defaultBackoff,
): number {
  const exponent = Math.min(Math.max(0, Math.floor(attempt)), 30);
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** exponent);
  const roll = Math.min(Math.max(random(), 0), 1);
  return Math.min(policy.capMs, Math.max(policy.minMs, Math.floor(roll * ceiling)));
}
