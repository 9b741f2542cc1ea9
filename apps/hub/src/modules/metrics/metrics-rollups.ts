/**
 * 5-minute rollups of metric samples (decision 0097): per asset and bucket, the sample count and each figure's
 * min, max and sum, so that a bucketed history of a long range (30 days: 720 hourly buckets over 259,200
 * samples at one every 10 s) reads 8,640 rollup rows instead of every sample.
 *
 * Written after the samples, not with them: the store notes each asset's span of committed samples (cheap,
 * in memory) and a pass every minute recomputes the closed 5-minute buckets those spans touch, whole, from the
 * samples table — one INSERT … SELECT … GROUP BY per group of assets with the same buckets. A bucket is thus
 * always the exact aggregate of its samples, late samples included; the write path of the samples (decision
 * 0094) is unchanged. At start, each asset's samples from its newest rollup on (all of them for an asset
 * without rollups, as after migration 0037) are rolled up, asset by asset.
 *
 * Reads (planBucketedRead) take from the rollups only the step-buckets lying whole inside the range and
 * ending before `now − readLagMs`; the edges, the recent buckets, ranges whose step is not a multiple of 5
 * minutes and assets without any rollup yet are aggregated from the samples, as before. A bucket absent from
 * the rollups is a gap, exactly as it is among the samples.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import {
  newestMetricRollup,
  nextAssetWithMetrics,
  rollupMetricSamples,
  rollupWidthS,
} from './metrics.repository.js';
import type { MetricsStore, SampleSpan } from './metrics.store.js';

/** Buckets ending later than this before now are read from the samples: the rollups may not have them yet. */
export const readLagMs = 5 * 60 * 1000;

/**
 * A pass rolls up only the steps that ended this long ago: a step is then computed once, when its samples are
 * in, rather than again every minute while it fills (reads take steps this recent from the samples anyway).
 */
const closedAfterMs = 30_000;

/** Assets rolled up by one statement at most: a closed step of 50 assets at 1 Hz is 15,000 samples, tens of ms. */
const assetsPerStatement = 50;

const widthMs = rollupWidthS * 1000;

/** How a bucketed read over [fromMs, toMs] by `stepS` splits between rollups and samples. */
export interface BucketedReadPlan {
  /** Rollup buckets to merge (bucket_s in [fromS, toS]); null when none fit. */
  rollups: { fromS: number; toS: number } | null;
  /** Ranges (ISO, both ends included) to aggregate from the samples, oldest first. */
  samples: { from: string; to: string }[];
}

/**
 * Which step-buckets come whole from the rollups: those starting at or after `fromMs`, ending (their last
 * millisecond) at or before `toMs`, and ending at least readLagMs before `nowMs`. The rest of the range, at
 * most a partial bucket at each end plus the recent ones, is read from the samples. Both parts together give
 * the same buckets as reading every sample of the range.
 */
export function planBucketedRead(
  fromMs: number,
  toMs: number,
  stepS: number,
  nowMs: number,
): BucketedReadPlan {
  const iso = (ms: number) => new Date(ms).toISOString();
  const whole = { samples: [{ from: iso(fromMs), to: iso(toMs) }], rollups: null };
  if (stepS % rollupWidthS !== 0) return whole;
  const stepMs = stepS * 1000;
  const first = Math.ceil(fromMs / stepMs);
  const last = Math.min(Math.floor((toMs + 1) / stepMs), Math.floor((nowMs - readLagMs) / stepMs)) - 1;
  if (first > last) return whole;
  const samples: { from: string; to: string }[] = [];
  if (fromMs < first * stepMs) samples.push({ from: iso(fromMs), to: iso(first * stepMs - 1) });
  if ((last + 1) * stepMs <= toMs) samples.push({ from: iso((last + 1) * stepMs), to: iso(toMs) });
  return { rollups: { fromS: first * stepS, toS: (last + 1) * stepS - rollupWidthS }, samples };
}

export interface MetricRollups {
  /** Recomputes the buckets touched by the samples committed since the last pass. */
  pass(): Promise<void>;
  /** Rolls up every asset's samples from its newest rollup on (all of them when it has none). */
  catchUp(): Promise<void>;
  /** Runs catchUp() (in the background), then a pass every interval. */
  start(): void;
  /** Stops the timer after a last pass. */
  close(): Promise<void>;
}

export interface MetricRollupsOptions {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  clock: Clock;
  store: Pick<MetricsStore, 'takeRollupSpans' | 'returnRollupSpans'>;
  /** How often a pass runs (default 60 s); 0 turns the timer off. */
  intervalMs?: number;
  onError?: (error: unknown) => void;
}

/** The first bucket's start and the last one's end (exclusive), in ms, of a span. */
function bucketsOf(span: SampleSpan): { fromMs: number; toMs: number } {
  const fromMs = Math.floor(Date.parse(span.from) / widthMs) * widthMs;
  const toMs = (Math.floor(Date.parse(span.to) / widthMs) + 1) * widthMs;
  return { fromMs, toMs };
}

export function createMetricRollups(options: MetricRollupsOptions): MetricRollups {
  const { db, dialect, store, clock } = options;
  const onError = options.onError ?? (() => undefined);
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  // One pass or catch-up at a time.
  let running: Promise<void> = Promise.resolve();

  const serially = (work: () => Promise<void>): Promise<void> => {
    const next = running.then(work);
    running = next.catch(() => undefined);
    return next;
  };

  async function passNow(): Promise<void> {
    const spans = store.takeRollupSpans();
    if (spans.size === 0) return;
    const closedUntil = Math.floor((clock.now().getTime() - closedAfterMs) / widthMs) * widthMs;
    // The parts of spans in steps not closed yet wait for a later pass.
    const open = new Map<string, SampleSpan>();
    // Assets whose spans cover the same buckets (a fleet reporting in time: nearly all) share statements.
    const groups = new Map<string, { fromMs: number; toMs: number; assetIds: string[] }>();
    for (const [assetId, span] of spans) {
      const { fromMs, toMs: spanToMs } = bucketsOf(span);
      const toMs = Math.min(spanToMs, closedUntil);
      if (spanToMs > toMs)
        open.set(assetId, { from: new Date(Math.max(fromMs, toMs)).toISOString(), to: span.to });
      if (fromMs >= toMs) continue;
      const key = `${fromMs}:${toMs}`;
      const group = groups.get(key);
      if (group) group.assetIds.push(assetId);
      else groups.set(key, { fromMs, toMs, assetIds: [assetId] });
    }
    store.returnRollupSpans(open);
    const done = new Set<string>();
    try {
      for (const group of groups.values()) {
        for (let i = 0; i < group.assetIds.length; i += assetsPerStatement) {
          const assetIds = group.assetIds.slice(i, i + assetsPerStatement);
          await rollupMetricSamples(db, dialect, assetIds, {
            from: new Date(group.fromMs).toISOString(),
            to: new Date(group.toMs).toISOString(),
          });
          for (const id of assetIds) done.add(id);
          await yieldToEventLoop();
        }
      }
    } catch (error) {
      // What was not rolled up is taken again by the next pass.
      const left = [...groups.values()].flatMap((g) =>
        g.assetIds.filter((id) => !done.has(id)).map((id) => [id, g] as const),
      );
      store.returnRollupSpans(
        new Map(
          left.map(([id, g]) => [
            id,
            { from: new Date(g.fromMs).toISOString(), to: new Date(g.toMs - 1).toISOString() },
          ]),
        ),
      );
      throw error;
    }
  }

  async function catchUpNow(): Promise<void> {
    let after: string | null = null;
    while (!closed) {
      const next = await nextAssetWithMetrics(db, after);
      if (next === null) return;
      after = next.assetId;
      const newest = await newestMetricRollup(db, next.assetId);
      const from =
        newest === null || newest * 1000 < Date.parse(next.oldestTs)
          ? Math.floor(Date.parse(next.oldestTs) / widthMs) * widthMs
          : newest * 1000;
      await rollupMetricSamples(db, dialect, [next.assetId], {
        from: new Date(from).toISOString(),
        to: null,
      });
      await yieldToEventLoop();
    }
  }

  return {
    pass: () => serially(passNow),
    catchUp: () => serially(catchUpNow),

    start() {
      serially(catchUpNow).catch(onError);
      const every = options.intervalMs ?? 60_000;
      if (every > 0 && !timer) {
        timer = setInterval(() => {
          serially(passNow).catch(onError);
        }, every);
        timer.unref();
      }
    },

    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await serially(passNow).catch(onError);
    },
  };
}
