/**
 * Per-target work of a fan-out, started in slices that yield to the event loop between them (decision 0057):
 * ten thousand sends in one macrotask would hold every other request, agent heartbeat and timer for as long
 * as they take. Bounded: at most `limit` pieces of work in flight at once.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Targets started per slice before the event loop gets a turn. */
export const fanOutSlice = 250;

/**
 * Runs `work(i)` for i in 0..n-1, at most `limit` at once, starting at most `slice` of them per turn of the
 * event loop. Rejects with the first error `work` throws (the rest still run to their end, unobserved).
 */
export async function eachInSlices(
  n: number,
  limit: number,
  slice: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  const bound = Math.max(1, limit);
  // Changed by the callbacks of work in flight, so read through the object after each await.
  const state: { inFlight: number; failure: { error: unknown } | null; wake: (() => void) | null } = {
    inFlight: 0,
    failure: null,
    wake: null,
  };
  const settled = () => {
    state.inFlight -= 1;
    const wake = state.wake;
    state.wake = null;
    wake?.();
  };
  const failed = (error: unknown) => {
    state.failure ??= { error };
    settled();
  };
  const waitForRoom = () =>
    new Promise<void>((resolve) => {
      state.wake = resolve;
    });
  const check = () => {
    if (state.failure) throw state.failure.error;
  };
  let started = 0;
  while (started < n) {
    const end = Math.min(n, started + Math.max(1, slice));
    for (; started < end; started++) {
      while (state.inFlight >= bound && !state.failure) await waitForRoom();
      check();
      state.inFlight += 1;
      work(started).then(settled, failed);
    }
    if (started < n) await nextTurn();
    check();
  }
  while (state.inFlight > 0 && !state.failure) await waitForRoom();
  check();
}
