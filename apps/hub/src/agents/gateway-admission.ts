/**
 * Admission of agent connections (decisions 0089, 0102). A hub that comes back after a restart meets its whole
 * fleet within a few seconds; taking every upgrade at once spreads the event loop over thousands of half-done
 * connects, each slower than an agent waits, and the API stalls with them. Instead at most `concurrency`
 * connections are between their upgrade request and their welcome; the others wait their turn, first come first
 * served, in a queue. A slot is given back at the welcome, or when the connection ends first.
 *
 * The queue holds only what the hub can admit soon: once it has measured its pace (slots given back a second
 * while it had more than it could take), at most `queueWaitMs` of that pace wait; the others are refused at once
 * with a `Retry-After` that books each of them a later second of its own (decision 0102), so the refused part
 * of the fleet comes back spread at the pace the hub admits, instead of retrying into more refusals or waiting
 * in a queue past the agent's timeout. Bounds that always hold: `queueLimit` waiting, each at most `maxWaitMs`,
 * and no booking past `maxRetryAfterS`.
 */

export interface AdmissionOptions {
  concurrency: number;
  /** Waiting connects at most, whatever the pace. */
  queueLimit: number;
  /** A connect waits at most this long, then is refused (with a booked Retry-After). */
  maxWaitMs: number;
  /** Once the pace is known, the queue holds at most this long of it. */
  queueWaitMs: number;
  /** The pace assumed for bookings before one is measured, and its floor (admissions a second). */
  minPacePerS: number;
  /** The longest Retry-After handed out. */
  maxRetryAfterS: number;
  /** The clock's milliseconds (tests pass their own). */
  now?: () => number;
}

/** Gives the slot back; calling it again does nothing. */
export type AdmissionRelease = () => void;

/** Admitted with its release, or refused with the seconds it is asked to wait (its booked turn). */
type AdmissionOutcome = { release: AdmissionRelease } | { retryAfterS: number };

export interface Admission {
  /**
   * Resolves once admitted, or refused: the queue is full for the hub's pace, the wait ran out, or `isGone()`
   * says the client left while it waited (its slot goes to the next).
   */
  enter(isGone: () => boolean): Promise<AdmissionOutcome>;
  /** Refuses everything waiting (the hub is closing) and stops its timer. */
  close(): void;
  stats(): { inFlight: number; queued: number };
}

interface Waiter {
  since: number;
  isGone: () => boolean;
  resolve: (outcome: AdmissionOutcome) => void;
}

/**
 * 512 in flight keeps a restarted hub's event loop on whole connects rather than on thousands of half-done
 * ones; 12 s is under the agent's 15 s handshake timeout, so an agent hears 503 before it gives up waiting;
 * 3 s of pace in the queue keeps the slots busy between the turns of agents that were told to come back.
 */
export const admissionDefaults = {
  concurrency: 512,
  queueLimit: 20_000,
  maxWaitMs: 12_000,
  queueWaitMs: 3_000,
  minPacePerS: 100,
  maxRetryAfterS: 120,
} as const;

/** How often the pace is measured. */
const paceWindowMs = 1_000;

export function createAdmission(options: AdmissionOptions): Admission {
  const now = options.now ?? (() => performance.now());
  const queue: Waiter[] = [];
  /** The queue's head: taken entries are skipped rather than shifted (an array shift is O(n)). */
  let head = 0;
  let inFlight = 0;
  let closed = false;
  let sweeper: NodeJS.Timeout | undefined;
  /** Admissions a second while there was more to admit; null until measured. */
  let pace: number | null = null;
  let windowStart = now();
  let windowDone = 0;
  let windowBusy = false;
  /** The end of the last turn booked for a refused connect (the clock's ms). */
  let bookedUntil = 0;

  const waiting = () => queue.length - head;
  const isFull = () => inFlight >= options.concurrency;

  /**
   * Rolls the pace window once a second. Only a window that began with more to admit than slots counts: one
   * that began idle (the hub just started, the storm not yet there) would measure the arrivals, not the pace.
   */
  function measure(): void {
    const t = now();
    const elapsed = t - windowStart;
    if (elapsed < paceWindowMs) return;
    if (windowBusy) {
      const sample = (windowDone * 1_000) / elapsed;
      pace = pace === null ? sample : (pace + sample) / 2;
    }
    windowStart = t;
    windowDone = 0;
    windowBusy = isFull() || waiting() > 0;
  }

  const pacePerS = () => Math.max(options.minPacePerS, pace ?? options.minPacePerS);

  /** The queue's bound now: `queueWaitMs` of the measured pace, never under the slots, never over the limit. */
  function queueCap(): number {
    if (pace === null) return options.queueLimit;
    const byPace = Math.ceil((pacePerS() * options.queueWaitMs) / 1_000);
    return Math.min(options.queueLimit, Math.max(options.concurrency, byPace));
  }

  /** Books the next free turn after the queue ahead and the turns already booked: seconds from now. */
  function book(): number {
    const t = now();
    const perTurnMs = 1_000 / pacePerS();
    const horizon = t + options.maxRetryAfterS * 1_000;
    const start = Math.min(horizon, Math.max(t + waiting() * perTurnMs, bookedUntil));
    bookedUntil = Math.min(horizon, start + perTurnMs);
    // Whole milliseconds first: the clock is fractional, and (t + 10_000) - t can come out a hair over 10_000.
    return Math.min(options.maxRetryAfterS, Math.max(1, Math.ceil(Math.round(start - t) / 1_000)));
  }

  function refuse(waiter: Waiter): void {
    waiter.resolve({ retryAfterS: book() });
  }

  function makeRelease(): AdmissionRelease {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      inFlight -= 1;
      windowDone += 1;
      pump();
    };
  }

  /** Admits from the head while slots are free; refuses those that waited too long or left, and the overflow. */
  function pump(): void {
    measure();
    const oldest = now() - options.maxWaitMs;
    while (head < queue.length) {
      const waiter = queue[head];
      if (!waiter) break;
      if (waiter.isGone()) {
        head += 1;
        waiter.resolve({ retryAfterS: 1 });
        continue;
      }
      if (waiter.since < oldest) {
        head += 1;
        refuse(waiter);
        continue;
      }
      if (isFull()) break;
      head += 1;
      inFlight += 1;
      waiter.resolve({ release: makeRelease() });
    }
    // The newest beyond what the pace admits soon hear their turn now rather than time out later.
    const cap = queueCap();
    if (waiting() > cap) {
      const overflow = queue.splice(head + cap);
      for (const waiter of overflow) refuse(waiter);
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
      sweeper = setInterval(pump, Math.max(50, Math.min(250, options.maxWaitMs / 4)));
      sweeper.unref();
    }
  }

  return {
    enter(isGone) {
      if (closed) return Promise.resolve({ retryAfterS: 1 });
      measure();
      if (!isFull() && waiting() === 0) {
        inFlight += 1;
        return Promise.resolve({ release: makeRelease() });
      }
      if (waiting() >= queueCap()) return Promise.resolve({ retryAfterS: book() });
      return new Promise((resolve) => {
        queue.push({ since: now(), isGone, resolve });
        pump();
      });
    },
    close() {
      closed = true;
      clearInterval(sweeper);
      sweeper = undefined;
      for (const waiter of queue.slice(head)) waiter.resolve({ retryAfterS: 1 });
      queue.length = 0;
      head = 0;
    },
    stats() {
      return { inFlight, queued: waiting() };
    },
  };
}
