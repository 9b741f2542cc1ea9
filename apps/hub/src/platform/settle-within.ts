/**
 * Waits until every promise has settled or `ms` have passed, whichever comes first: a stop (a runner's close())
 * that waits for the work it started, but never hangs on it.
 */
export async function settleWithin(promises: Iterable<Promise<unknown>>, ms: number): Promise<void> {
  let wait: NodeJS.Timeout | undefined;
  await Promise.race([
    Promise.allSettled(promises),
    new Promise<void>((resolve) => {
      wait = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(wait);
}
