/**
 * Admission of agent connections (decision 0089). A hub that comes back after a restart meets its whole fleet
 * within a few seconds; taking every upgrade at once spreads the event loop over thousands of half-done
 * connects, each slower than an agent waits, and the API stalls with them. Instead at most `concurrency`
 * connections are between their upgrade request and their welcome; the others wait their turn, first come first
 * served, in a queue of at most `queueLimit`, each at most `maxWaitMs`. Past either bound the upgrade is refused
 * 503 with `Retry-After`, early enough that the agent's short reconnect ceiling brings it back within seconds
 * instead of a backoff grown by timeouts. A slot is given back at the welcome, or when the connection ends first.
 */

export interface AdmissionOptions {
  concurrency: number;
  queueLimit: number;
  maxWaitMs: number;
  /** The clock's milliseconds (tests pass their own). */
  now?: () => number;
}

/** Gives the slot back; calling it again does nothing. */
export type AdmissionRelease = () => void;

export interface Admission {
  /**
   * Resolves with a release once admitted, or with null when refused: the queue is full, the wait ran out, or
   * `isGone()` says the client left while it waited (its slot goes to the next).
   */
  enter(isGone: () => boolean): Promise<AdmissionRelease | null>;
  /** Refuses everything waiting (the hub is closing) and stops its timer. */
  close(): void;
  stats(): { inFlight: number; queued: number };
}

interface Waiter {
  since: number;
  isGone: () => boolean;
  resolve: (release: AdmissionRelease | null) => void;
}

/**
 * 512 in flight keeps a restarted hub's event loop on whole connects rather than on thousands of half-done
 * ones; 12 s is under the agent's 15 s handshake timeout, so an agent hears 503 before it gives up waiting.
 */
export const admissionDefaults = {
  concurrency: 512,
  queueLimit: 20_000,
  maxWaitMs: 12_000,
} as const;

export function createAdmission(options: AdmissionOptions): Admission {
  const now = options.now ?? (() => performance.now());
  const queue: Waiter[] = [];
  /** The queue's head: taken entries are skipped rather than shifted (an array shift is O(n)). */
  let head = 0;
  let inFlight = 0;
  let closed = false;
  let sweeper: NodeJS.Timeout | undefined;

  function makeRelease(): AdmissionRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      pump();
    };
  }

  /** Admits from the head while slots are free; refuses those that waited too long or left. */
  function pump(): void {
    const oldest = now() - options.maxWaitMs;
    while (head < queue.length) {
      const waiter = queue[head];
      if (!waiter) break;
      if (waiter.isGone() || waiter.since < oldest) {
        head += 1;
        waiter.resolve(null);
        continue;
      }
      if (inFlight >= options.concurrency) break;
      head += 1;
      inFlight += 1;
      waiter.resolve(makeRelease());
    }
    if (head > 1024 && head * 2 > queue.length) {
      queue.splice(0, head);
      head = 0;
    }
    if (head >= queue.length) {
      clearInterval(sweeper);
      sweeper = undefined;
    } else if (!sweeper) {
      // Waits run out while no slot frees: one timer for the whole queue.
      sweeper = setInterval(pump, Math.max(50, Math.min(1_000, options.maxWaitMs / 4)));
      sweeper.unref();
    }
  }

  return {
    enter(isGone) {
      if (closed) return Promise.resolve(null);
      if (inFlight < options.concurrency && head >= queue.length) {
        inFlight += 1;
        return Promise.resolve(makeRelease());
      }
      if (queue.length - head >= options.queueLimit) return Promise.resolve(null);
      return new Promise((resolve) => {
        queue.push({ since: now(), isGone, resolve });
        pump();
      });
    },
    close() {
      closed = true;
      clearInterval(sweeper);
      sweeper = undefined;
      for (const waiter of queue.slice(head)) waiter.resolve(null);
      queue.length = 0;
      head = 0;
    },
    stats() {
      return { inFlight, queued: queue.length - head };
    },
  };
}
