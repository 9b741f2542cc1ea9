/**
 * Deletes the metric history of deleted assets off the request path. Deleting an asset with a million samples
 * in its own transaction once held the hub for 2 s; now the asset row goes at once (every read of metrics goes
 * through the assets table, so the history is unreachable from then on) and this purger removes the samples
 * in batches of batchRows, pausing between batches so that requests and agents keep their turn.
 *
 * Nothing records a purge in progress: a hub stopped halfway leaves samples whose asset no longer exists, and
 * sweep() (at start, then hourly) walks the assets that have samples and purges those that do not exist. The
 * hourly sweep also takes samples the store wrote for an asset after its purge ended.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import type { AssetService } from '../assets/assets.service.js';
import { deleteAssetMetricsBatch, deleteMetricRollups, nextAssetWithMetrics } from './metrics.repository.js';

export interface MetricsPurgerOptions {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /**
   * Waits for the samples the store held when the purge began (the store's settled()), so that those of the
   * deleted asset are purged with the rest.
   */
  flush: () => Promise<void>;
  /** Tells which of the assets that have samples no longer exist. */
  assets: Pick<AssetService, 'missingIds'>;
  /** Samples deleted per statement (default 5,000). */
  batchRows?: number;
  /** Waits between two batches (default: one turn of the event loop). */
  pause?: () => Promise<void>;
  /** How often sweep() runs after the first (default hourly); 0 turns the timer off. */
  sweepIntervalMs?: number;
  onError?: (error: unknown) => void;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}

export interface MetricsPurger {
  /** Queues the history of a deleted asset for deletion; returns at once. */
  purge(assetId: string): void;
  /** Finds samples of assets that no longer exist and queues them; resolves with how many assets it queued. */
  sweep(): Promise<number>;
  /** Runs a sweep now (in the background) and starts the hourly timer. */
  start(): void;
  /** Assets whose history is still being deleted. */
  pending(): number;
  /** Samples deleted since the start. */
  deleted(): number;
  /** Resolves when nothing is queued or being deleted. */
  idle(): Promise<void>;
  /** Stops after the batch under way; what is left is found by the next start's sweep. */
  close(): Promise<void>;
}

/** Asset ids looked up at once while sweeping. */
const sweepChunk = 500;

export function createMetricsPurger(options: MetricsPurgerOptions): MetricsPurger {
  const { db, dialect } = options;
  const batchRows = Math.max(1, options.batchRows ?? 5_000);
  const pause = options.pause ?? (() => yieldToEventLoop());
  const onError = options.onError ?? (() => undefined);
  const queue = new Set<string>();
  let deletedRows = 0;
  let working: Promise<void> | null = null;
  let sweeping: Promise<number> | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;

  async function purgeOne(assetId: string): Promise<void> {
    await options.flush();
    // Its rollups go before the samples (so a stop halfway leaves samples, which the next sweep finds) and
    // after them (a rollup pass may have run in between, on the samples not yet deleted).
    await deleteMetricRollups(db, assetId);
    while (!closed) {
      const n = await deleteAssetMetricsBatch(db, dialect, assetId, batchRows);
      deletedRows += n;
      if (n < batchRows) break;
      await pause();
    }
    if (!closed) await deleteMetricRollups(db, assetId);
  }

  function work(): void {
    working ??= (async () => {
      try {
        while (!closed && queue.size > 0) {
          const assetId = queue.values().next().value as string;
          try {
            await purgeOne(assetId);
          } catch (error) {
            // Left for the next sweep, which finds the samples again.
            onError(error);
          }
          queue.delete(assetId);
        }
      } finally {
        working = null;
      }
    })();
  }

  async function walk(): Promise<number> {
    let queued = 0;
    let after: string | null = null;
    while (!closed) {
      // Through the (asset_id, ts) index: one short descent per asset that has samples.
      const ids: string[] = [];
      while (ids.length < sweepChunk) {
        const next = await nextAssetWithMetrics(db, after);
        if (next === null) break;
        after = next.assetId;
        ids.push(next.assetId);
      }
      if (ids.length === 0) break;
      for (const id of await options.assets.missingIds(ids)) {
        if (!queue.has(id)) queued += 1;
        queue.add(id);
      }
      if (queued > 0) work();
      if (ids.length < sweepChunk) break;
      await yieldToEventLoop();
    }
    return queued;
  }

  const purger: MetricsPurger = {
    purge(assetId) {
      if (closed) return;
      queue.add(assetId);
      work();
    },

    sweep() {
      sweeping ??= walk().finally(() => {
        sweeping = null;
      });
      return sweeping;
    },

    start() {
      const mine = () => !options.runsHere || options.runsHere();
      if (mine()) purger.sweep().catch(onError);
      const every = options.sweepIntervalMs ?? 60 * 60 * 1000;
      if (every > 0 && !timer) {
        timer = setInterval(() => {
          if (mine()) purger.sweep().catch(onError);
        }, every);
        timer.unref();
      }
    },

    pending: () => queue.size,

    deleted: () => deletedRows,

    async idle() {
      while (sweeping || working) {
        await sweeping?.catch(() => 0);
        await working;
      }
    },

    async close() {
      closed = true;
      if (timer) clearInterval(timer);
      await sweeping?.catch(() => 0);
      await working;
    },
  };
  return purger;
}
