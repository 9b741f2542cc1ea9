/**
 * Logs refusals (401s, refused agent credentials, channel violations) without letting a client write the log
 * for us: each source address gets a few lines per window, the rest are counted and summed up in one line
 * ("N more refusals from <addr> in the last minute"). Memory is bounded: at most `maxSources` addresses are
 * counted apart, refusals from further addresses share one counter until the window ends.
 */
import { sourceKey } from './ip-address.js';
import type { Logger } from './logger.js';

const refusalLogDefaults = {
  linesPerSource: 5,
  /** Lines from all sources together per window, so that many addresses cannot flood the log either. */
  linesPerWindow: 200,
  windowMs: 60_000,
  maxSources: 1_000,
} as const;

export interface RefusalLogOptions {
  /** Where summaries go; single refusals are logged by the caller, with its own logger and level. */
  logger: Logger;
  linesPerSource?: number;
  linesPerWindow?: number;
  windowMs?: number;
  maxSources?: number;
  now?: () => number;
}

export interface RefusalLog {
  /**
   * Whether the caller should log this refusal itself. When not, the refusal is counted for its source's
   * summary. `kind` says what was refused (a constant of the calling code: `request`, `agent credential`…).
   */
  admit(source: string | null | undefined, kind: string): boolean;
  /** Writes the summaries of windows that have ended and forgets their sources. */
  sweep(): void;
  /** Sources counted apart right now (for tests of the memory bound). */
  readonly size: number;
}

interface Tally {
  startedAt: number;
  logged: number;
  suppressed: number;
  kinds: Map<string, number>;
}

/** The key a client address is counted under (`sourceKey`: an IPv6 /64 as one source), 'unknown' for none. */
export function addressKey(address: string | null | undefined): string {
  return address ? sourceKey(address) : 'unknown';
}

function describeWindow(ms: number): string {
  return ms === 60_000 ? 'the last minute' : `the last ${Math.round(ms / 1000)} s`;
}

export function createRefusalLog(options: RefusalLogOptions): RefusalLog {
  const { logger } = options;
  const linesPerSource = options.linesPerSource ?? refusalLogDefaults.linesPerSource;
  const linesPerWindow = options.linesPerWindow ?? refusalLogDefaults.linesPerWindow;
  const windowMs = options.windowMs ?? refusalLogDefaults.windowMs;
  const maxSources = options.maxSources ?? refusalLogDefaults.maxSources;
  const now = options.now ?? Date.now;
  const tallies = new Map<string, Tally>();
  const overflow: Tally = { startedAt: now(), logged: 0, suppressed: 0, kinds: new Map() };
  let windowStartedAt = now();
  let linesInWindow = 0;
  let timer: NodeJS.Timeout | null = null;

  function count(tally: Tally, kind: string): void {
    tally.suppressed += 1;
    tally.kinds.set(kind, (tally.kinds.get(kind) ?? 0) + 1);
  }

  function summarize(source: string, tally: Tally, others = false): void {
    if (tally.suppressed === 0) return;
    const from = others ? 'other addresses' : source;
    logger.warn(
      { source: others ? null : source, refusals: tally.suppressed, kinds: Object.fromEntries(tally.kinds) },
      `${tally.suppressed} more refusals from ${from} in ${describeWindow(windowMs)}`,
    );
  }

  function reset(tally: Tally, at: number): void {
    tally.startedAt = at;
    tally.logged = 0;
    tally.suppressed = 0;
    tally.kinds.clear();
  }

  // A source that went quiet still gets its summary: a timer runs while something waits to be summed up.
  function ensureTimer(): void {
    if (timer) return;
    timer = setInterval(sweep, windowMs);
    timer.unref();
  }

  function sweep(): void {
    const at = now();
    for (const [source, tally] of tallies) {
      if (at - tally.startedAt < windowMs && at >= tally.startedAt) continue;
      summarize(source, tally);
      tallies.delete(source);
    }
    if (at - overflow.startedAt >= windowMs || at < overflow.startedAt) {
      summarize('', overflow, true);
      reset(overflow, at);
    }
    if (at - windowStartedAt >= windowMs || at < windowStartedAt) {
      windowStartedAt = at;
      linesInWindow = 0;
    }
    if (timer && tallies.size === 0 && overflow.suppressed === 0) {
      clearInterval(timer);
      timer = null;
    }
  }

  function admit(source: string | null | undefined, kind: string): boolean {
    const at = now();
    if (at - windowStartedAt >= windowMs || at < windowStartedAt) sweep();
    const key = addressKey(source);
    let tally = tallies.get(key);
    if (tally && (at - tally.startedAt >= windowMs || at < tally.startedAt)) {
      summarize(key, tally);
      reset(tally, at);
    }
    if (!tally) {
      if (tallies.size >= maxSources) sweep();
      if (tallies.size >= maxSources) {
        count(overflow, kind);
        ensureTimer();
        return false;
      }
      tally = { startedAt: at, logged: 0, suppressed: 0, kinds: new Map() };
      tallies.set(key, tally);
    }
    if (tally.logged < linesPerSource && linesInWindow < linesPerWindow) {
      tally.logged += 1;
      linesInWindow += 1;
      return true;
    }
    count(tally, kind);
    ensureTimer();
    return false;
  }

  return {
    admit,
    sweep,
    get size() {
      return tallies.size;
    },
  };
}
