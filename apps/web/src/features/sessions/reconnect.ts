/**
 * The re-attach policy of remote sessions (terminal and desktop) after a transient drop (`autoReconnect`):
 * at most `attempts` tries in a row, waiting `firstDelayMs` doubling up to `maxDelayMs` between them.
 */
export const reconnectLimits = { attempts: 8, firstDelayMs: 500, maxDelayMs: 5_000 } as const;

/** The wait before re-attach attempt `attempt` (1-based). */
export function reconnectDelayMs(attempt: number): number {
  return Math.min(reconnectLimits.maxDelayMs, reconnectLimits.firstDelayMs * 2 ** Math.max(0, attempt - 1));
}
