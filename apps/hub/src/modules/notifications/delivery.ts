/**
 * The delivery set-up channels and push subscriptions share: sends bounded in flight (over the bound a send is
 * counted as failed, not queued), each under a timeout and aborted when the hub closes; and a digest window
 * per target, kept in the database (digest-store.ts, decision 0044): the first item on any process opens it,
 * and its end sends everything collected (items past the digest's bound only counted). The process that
 * opened or joined a window flushes it at its end; every process sweeps for ended windows now and then, so a
 * window whose processes died is still sent.
 *
 * A taken window is leased to its taker until its send ran (decision 0047): a send that ran (delivered, or
 * failed and counted) marks it sent; one the hub's close stopped gives it back; one whose process died is
 * taken again by a sweep once the lease expired. At least once: a process that dies between sending and
 * marking leaves a digest that goes out twice.
 */
import type { Clock } from '../../platform/clock.js';
import type { Logger } from '../../platform/logger.js';
import type { DigestStore, TakenDigest } from './digest-store.js';

export interface Delivery<T> {
  /** Runs one send for `targetId`, unless closed or too many are in flight (then `onOverflow`). */
  send(targetId: string, work: SendWork): void;
  /** Into the target's digest: with `windowS` 0 flushed at once, else when the window that opens ends. */
  collect(targetId: string, windowS: number, item: T): void;
  /** Forgets a target's open digest (the target was removed). */
  drop(targetId: string): void;
  /** Sends every digest whose window ended or whose lease expired unsent (the periodic sweep; tests call it). */
  flushDue(): Promise<void>;
  /** Refuses new sends, stops the digest timers (open windows stay stored), aborts and awaits the sends. */
  close(): Promise<void>;
}

/** How often each process looks for ended windows that nobody flushed. */
const sweepMs = 5_000;
const sweepBatch = 100;
/** How long a taken window is its taker's: well past a send's timeout (10 s), and clocks that disagree a bit. */
const defaultLeaseMs = 60_000;

type SendWork = (signal: AbortSignal) => Promise<unknown>;

export function createDelivery<T>(options: {
  logger: Logger;
  clock: Clock;
  /** Names the sends in the log: "notifications", "push"; and their digests' targets in the store. */
  what: string;
  maxInFlight: number;
  sendTimeoutMs: number;
  onOverflow: (targetId: string) => Promise<void>;
  digests: DigestStore;
  /** Reads back a stored item: null for one that does not parse (dropped). */
  parse: (json: unknown) => T | null;
  /**
   * Prepares a digest's send: loads the target by id (it may have changed, or be gone) and returns the send,
   * or null when nothing goes out (the target is gone or off).
   */
  prepare: (targetId: string, items: T[], more: number) => Promise<SendWork | null>;
  /** How long a taken window stays its taker's before another process may send it (default 60 s). */
  leaseMs?: number;
}): Delivery<T> {
  const { logger, what, digests, clock } = options;
  const leaseMs = options.leaseMs ?? defaultLeaseMs;
  const timers = new Map<string, { timer: NodeJS.Timeout; endsAt: number }>();
  const inFlight = new Set<Promise<void>>();
  /** Digest work under way (store writes, flushes): awaited on close, not counted as sends. */
  const background = new Set<Promise<void>>();
  const closing = new AbortController();
  let closed = false;
  const prefix = `${what}:`;
  const targetOf = (targetId: string) => `${prefix}${targetId}`;

  function track(work: Promise<void>, doing: string): void {
    const running = work.catch((error: unknown) => {
      logger.error({ err: error }, `${what}: ${doing} failed`);
    });
    background.add(running);
    void running.finally(() => background.delete(running));
  }

  function readItems(texts: readonly string[]): T[] {
    const items: T[] = [];
    for (const text of texts) {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        continue;
      }
      const item = options.parse(value);
      if (item !== null) items.push(item);
    }
    return items;
  }

  /**
   * Runs one send and waits for it: 'ran' when it ran (delivered, or failed and counted; over the in-flight
   * bound, counted as failed), 'stopped' when the hub's close came first or aborted it.
   */
  function runSend(targetId: string, work: SendWork): Promise<'ran' | 'stopped'> {
    if (closed) return Promise.resolve('stopped');
    if (inFlight.size >= options.maxInFlight) {
      return options.onOverflow(targetId).then(
        () => 'ran' as const,
        (error: unknown) => {
          logger.error({ err: error }, `${what}: counting a failure failed`);
          return 'ran' as const;
        },
      );
    }
    const signal = AbortSignal.any([closing.signal, AbortSignal.timeout(options.sendTimeoutMs)]);
    const running = work(signal).then(
      () => undefined,
      (error: unknown) => {
        logger.error({ err: error }, `${what}: a send failed`);
      },
    );
    inFlight.add(running);
    void running.finally(() => inFlight.delete(running));
    return running.then(() => (closing.signal.aborted ? 'stopped' : 'ran'));
  }

  /** Sends a taken digest, then marks it sent; gives it back when the hub's close stopped the send. */
  async function sendTaken(taken: TakenDigest): Promise<void> {
    const targetId = taken.target.slice(prefix.length);
    const items = readItems(taken.items);
    const work =
      items.length === 0 && taken.more === 0 ? null : await options.prepare(targetId, items, taken.more);
    const outcome = work === null ? 'ran' : await runSend(targetId, work);
    if (outcome === 'ran') await taken.sent();
    else await taken.release();
  }

  /** Takes the target's window if it ended by `at` and sends it. */
  async function flushWindow(targetId: string, at: Date): Promise<void> {
    // The lease runs from now, not from `at` (a timer's window end, which may lie in the past).
    const lease = leaseMs + Math.max(0, clock.now().getTime() - at.getTime());
    const taken = await digests.take(targetOf(targetId), at, lease);
    if (taken) await sendTaken(taken);
  }

  function schedule(targetId: string, endsAt: Date): void {
    if (closed) return;
    const set = timers.get(targetId);
    if (set?.endsAt === endsAt.getTime()) return;
    // A window ending at another time is a new one: the one this timer waited for was taken elsewhere.
    if (set) clearTimeout(set.timer);
    const delay = Math.max(0, endsAt.getTime() - clock.now().getTime());
    const timer = setTimeout(() => {
      timers.delete(targetId);
      // Taken as of the window's end: this timer was set for that window, whatever the clock says.
      track(flushWindow(targetId, endsAt), 'sending a digest');
    }, delay);
    timer.unref();
    timers.set(targetId, { timer, endsAt: endsAt.getTime() });
  }

  async function flushDue(): Promise<void> {
    const now = clock.now();
    const work: Promise<void>[] = [];
    for (const target of await digests.due(now, sweepBatch)) {
      if (!target.startsWith(prefix)) continue;
      work.push(flushWindow(target.slice(prefix.length), now));
    }
    for (const taken of await digests.retake(prefix, now, leaseMs, sweepBatch)) work.push(sendTaken(taken));
    const failures = (await Promise.allSettled(work)).filter((r) => r.status === 'rejected');
    for (const failure of failures) logger.error({ err: failure.reason }, `${what}: sending a digest failed`);
  }

  /** The sweep in progress: a slow one (its sends take their time) is not started again on top of itself. */
  let sweeping: Promise<void> | null = null;
  const sweep = setInterval(() => {
    if (closed || sweeping) return;
    sweeping = flushDue().finally(() => {
      sweeping = null;
    });
    track(sweeping, 'sweeping digests');
  }, sweepMs);
  sweep.unref();

  return {
    send(targetId, work) {
      void runSend(targetId, work);
    },

    collect(targetId, windowS, item) {
      if (closed) return;
      if (windowS === 0) {
        track(
          options.prepare(targetId, [item], 0).then((work) => {
            if (work) void runSend(targetId, work);
          }),
          'sending a notification',
        );
        return;
      }
      track(
        digests.add(targetOf(targetId), windowS, JSON.stringify(item), clock.now()).then((endsAt) => {
          schedule(targetId, endsAt);
        }),
        'collecting a digest item',
      );
    },

    drop(targetId) {
      const set = timers.get(targetId);
      if (set) clearTimeout(set.timer);
      timers.delete(targetId);
      track(digests.drop(targetOf(targetId)), 'dropping a digest');
    },

    flushDue,

    async close() {
      closed = true;
      clearInterval(sweep);
      for (const set of timers.values()) clearTimeout(set.timer);
      timers.clear();
      // Sends stop first: a digest whose send was under way is given back (in the background work awaited next).
      closing.abort();
      await Promise.allSettled([...inFlight]);
      await Promise.allSettled([...background]);
    },
  };
}
