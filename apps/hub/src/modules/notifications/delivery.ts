/**
 * The delivery set-up channels and push subscriptions share: sends bounded in flight (over the bound a send is
 * counted as failed, not queued), each under a timeout and aborted when the hub closes; and a digest window
 * per target, the first item opening it and its end sending everything collected (items past the digest's
 * bound only counted).
 */
import { notificationLimits } from '@svc/protocol';
import type { Logger } from '../../platform/logger.js';

export interface Delivery<T> {
  /** Runs one send for `targetId`, unless closed or too many are in flight (then `onOverflow`). */
  send(targetId: string, work: (signal: AbortSignal) => Promise<unknown>): void;
  /** Into the target's digest: with `windowS` 0 flushed at once, else when the window that opens ends. */
  collect(targetId: string, windowS: number, item: T, flush: (items: T[], more: number) => void): void;
  /** Forgets a target's open digest (the target was removed or changed). */
  drop(targetId: string): void;
  /** Refuses new sends, drops open digests, aborts and awaits the sends in flight. */
  close(): Promise<void>;
}

interface Digest<T> {
  items: T[];
  more: number;
  timer: NodeJS.Timeout;
}

export function createDelivery<T>(options: {
  logger: Logger;
  /** Names the sends in the log: "notifications", "push". */
  what: string;
  maxInFlight: number;
  sendTimeoutMs: number;
  onOverflow: (targetId: string) => Promise<void>;
}): Delivery<T> {
  const { logger, what } = options;
  const digests = new Map<string, Digest<T>>();
  const inFlight = new Set<Promise<void>>();
  const closing = new AbortController();
  let closed = false;

  const drop = (targetId: string) => {
    const digest = digests.get(targetId);
    if (digest) clearTimeout(digest.timer);
    digests.delete(targetId);
  };

  return {
    send(targetId, work) {
      if (closed) return;
      if (inFlight.size >= options.maxInFlight) {
        options.onOverflow(targetId).catch((error: unknown) => {
          logger.error({ err: error }, `${what}: counting a failure failed`);
        });
        return;
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
    },

    collect(targetId, windowS, item, flush) {
      if (windowS === 0) {
        flush([item], 0);
        return;
      }
      const open = digests.get(targetId);
      if (open) {
        if (open.items.length < notificationLimits.digestItems) open.items.push(item);
        else open.more += 1;
        return;
      }
      const timer = setTimeout(() => {
        const digest = digests.get(targetId);
        digests.delete(targetId);
        if (digest) flush(digest.items, digest.more);
      }, windowS * 1000);
      timer.unref();
      digests.set(targetId, { items: [item], more: 0, timer });
    },

    drop,

    async close() {
      closed = true;
      for (const id of [...digests.keys()]) drop(id);
      closing.abort();
      await Promise.allSettled([...inFlight]);
    },
  };
}
