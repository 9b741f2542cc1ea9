/**
 * Failed agent-channel credentials per source address. Only failures count: after a hub restart a whole fleet
 * reconnects at once, often through a few NAT or proxy addresses, and none of that may be throttled. An
 * address over the limit is refused before its credential is even looked at, until its minute is over.
 */
import { addressKey } from '../platform/refusal-log.js';

const channelFailureDefaults = {
  failuresPerMinute: 30,
  /** Addresses counted at once; past this the oldest is forgotten, so memory stays bounded. */
  maxAddresses: 10_000,
} as const;

const windowMs = 60_000;

export interface ChannelFailureLimiter {
  /** Seconds until the address may try again, or 0 when it may try now. */
  retryAfterSeconds(address: string | null): number;
  recordFailure(address: string | null): void;
  readonly size: number;
}

interface Window {
  startedAt: number;
  failures: number;
}

export function createChannelFailureLimiter(
  options: { failuresPerMinute?: number; maxAddresses?: number; now?: () => number } = {},
): ChannelFailureLimiter {
  const limit = options.failuresPerMinute ?? channelFailureDefaults.failuresPerMinute;
  const maxAddresses = options.maxAddresses ?? channelFailureDefaults.maxAddresses;
  const now = options.now ?? Date.now;
  const windows = new Map<string, Window>();

  function current(key: string, at: number): Window | undefined {
    const window = windows.get(key);
    if (window && (at - window.startedAt >= windowMs || at < window.startedAt)) {
      windows.delete(key);
      return undefined;
    }
    return window;
  }

  function makeRoom(at: number): void {
    for (const [key, window] of windows) {
      if (at - window.startedAt >= windowMs || at < window.startedAt) windows.delete(key);
    }
    // Insertion order: the first key is the window opened longest ago.
    while (windows.size >= maxAddresses) {
      const oldest = windows.keys().next();
      if (oldest.done === true) break;
      windows.delete(oldest.value);
    }
  }

  return {
    retryAfterSeconds(address) {
      const at = now();
      const window = current(addressKey(address), at);
      if (!window || window.failures < limit) return 0;
      return Math.max(1, Math.ceil((window.startedAt + windowMs - at) / 1000));
    },
    recordFailure(address) {
      const at = now();
      const key = addressKey(address);
      const window = current(key, at);
      if (window) {
        window.failures += 1;
        return;
      }
      if (windows.size >= maxAddresses) makeRoom(at);
      windows.set(key, { startedAt: at, failures: 1 });
    },
    get size() {
      return windows.size;
    },
  };
}
