/**
 * The hub's own event-loop lag, read from its /metrics (prom-client's `nodejs_eventloop_lag_*` gauges, over the
 * window since the previous scrape): a benchmark scrapes once to open a window, runs what it measures, and
 * scrapes again to read the lag of exactly that window. The owner key holds `hub:metrics`.
 */
import { hubGauge } from './hub-gauge.js';
import type { JsonClient } from './https-json.js';

export interface LoopLag {
  /** p99 of the delay of the hub's 10 ms timer over the window, ms. */
  p99Ms: number;
  /** The longest delay in the window, ms. */
  maxMs: number;
}

function gauge(text: string, name: string): number {
  return hubGauge(text, `nodejs_eventloop_lag_${name}_seconds`) * 1000;
}

/** Scrapes /metrics: the lag since the previous scrape, and a new window opened. */
export async function scrapeLoopLag(client: JsonClient, origin: string, key: string): Promise<LoopLag> {
  const res = await client.request('GET', `${origin}/metrics`, {
    headers: { authorization: `Bearer ${key}` },
  });
  if (res.status !== 200) throw new Error(`GET /metrics answered ${res.status}: ${res.text.slice(0, 200)}`);
  return { p99Ms: gauge(res.text, 'p99'), maxMs: gauge(res.text, 'max') };
}

/**
 * Runs `work` in a window of its own and returns its result with the hub's lag over that window. Node's delay
 * histogram records nothing for the first timer interval after a reset, so the work starts 50 ms after it.
 */
export async function lagDuring<T>(
  client: JsonClient,
  origin: string,
  key: string,
  work: () => Promise<T>,
): Promise<{ result: T; lag: LoopLag }> {
  await scrapeLoopLag(client, origin, key);
  await new Promise((r) => setTimeout(r, 50));
  const result = await work();
  return { result, lag: await scrapeLoopLag(client, origin, key) };
}

/** The hub's lag over `ms` of doing nothing: the baseline the fan-out's lag is compared with. */
export async function idleLag(client: JsonClient, origin: string, key: string, ms: number): Promise<LoopLag> {
  return (await lagDuring(client, origin, key, () => new Promise((r) => setTimeout(r, ms)))).lag;
}

export const lagText = (lag: LoopLag) => `p99 ${lag.p99Ms.toFixed(0)} ms, max ${lag.maxMs.toFixed(0)} ms`;
