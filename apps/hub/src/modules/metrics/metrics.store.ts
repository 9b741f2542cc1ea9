/**
 * The metrics ingest path: agents' samples are buffered in memory and written in batches — one transaction
 * per batch, one multi-row INSERT per chunk of ≤ 500 rows — so that a fleet reporting 100,000 samples a
 * second costs a few hundred statements, not 100,000. The buffer is bounded: when the database falls behind,
 * new samples are dropped and counted rather than growing memory without end. Retention deletes samples
 * older than N days, hourly, in slices short enough not to stall the hub.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { MetricsSink } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import {
  compileMetricInsert,
  deleteMetricsBefore,
  insertMetricValues,
  maxRowsPerInsert,
  metricColumns,
  oldestMetricTs,
} from './metrics.repository.js';

export interface MetricsStoreOptions {
  db: Kysely<Database>;
  clock: Clock;
  /** Samples older than this many days are deleted (default 7). */
  retentionDays?: number;
  /** How often buffered samples are written (default 1 s); 0 writes only on flush() and full batches. */
  flushIntervalMs?: number;
  /** Samples per transaction; reaching it starts a write at once (default 5,000). */
  batchSize?: number;
  /** Samples held at most while waiting for the database; beyond it new samples are dropped (default 250,000). */
  maxBuffered?: number;
  /** How often retention runs (default hourly); 0 turns the timer off (prune() still works). */
  retentionIntervalMs?: number;
  /** Samples stamped further ahead than this are refused (a wrong agent clock; default 10 minutes). */
  maxFutureSkewMs?: number;
  onError?: (error: unknown) => void;
}

export interface MetricsStoreStats {
  buffered: number;
  written: number;
  /** Lost: buffer full, store closed, or a failed write. */
  dropped: number;
  /** Refused: unreadable timestamp, outside retention or too far ahead, numbers out of range. */
  rejected: number;
}

export interface MetricsStore extends MetricsSink {
  /** Writes everything buffered so far. */
  flush(): Promise<void>;
  /** Deletes samples older than the retention; returns how many. */
  prune(): Promise<number>;
  stats(): MetricsStoreStats;
  /** Stops the timers and writes what is buffered; later samples are dropped. */
  close(): Promise<void>;
}

const width = metricColumns.length;
const dayMs = 24 * 60 * 60 * 1000;
const pruneSliceMs = 60 * 1000;

export function createMetricsStore(options: MetricsStoreOptions): MetricsStore {
  const { db, clock } = options;
  const retentionMs = (options.retentionDays ?? 7) * dayMs;
  const batchSize = Math.max(1, options.batchSize ?? 5_000);
  const maxBuffered = Math.max(1, options.maxBuffered ?? 250_000);
  const maxFutureSkewMs = options.maxFutureSkewMs ?? 10 * 60 * 1000;
  const onError = options.onError ?? (() => undefined);

  // Full chunks of flattened samples, ≤ maxRowsPerInsert rows each; the last one is being filled.
  const chunks: unknown[][] = [];
  let buffered = 0;
  const counters = { written: 0, dropped: 0, rejected: 0 };
  let closed = false;
  let writing: Promise<void> | null = null;
  const insertSql = new Map<number, string>();

  function sqlFor(rows: number): string {
    let text = insertSql.get(rows);
    if (text === undefined) {
      text = compileMetricInsert(db, rows);
      insertSql.set(rows, text);
    }
    return text;
  }

  /** The canonical ISO timestamp, or null when the sample must be refused. */
  function checkTs(ts: string, now: number): string | null {
    const ms = Date.parse(ts);
    if (Number.isNaN(ms) || ms < now - retentionMs || ms > now + maxFutureSkewMs) return null;
    // Stored in one canonical form, so that text comparison is time order on both databases.
    return new Date(ms).toISOString();
  }

  function checkCount(n: number): boolean {
    return Number.isSafeInteger(n) && n >= 0;
  }

  function takeBatch(): unknown[][] {
    const rowsPerBatch = Math.max(batchSize, maxRowsPerInsert);
    const batch: unknown[][] = [];
    let rows = 0;
    while (chunks.length > 0 && rows < rowsPerBatch) {
      const chunk = chunks.shift() as unknown[];
      batch.push(chunk);
      rows += chunk.length / width;
    }
    buffered -= rows;
    return batch;
  }

  async function writeBatch(batch: unknown[][]): Promise<void> {
    const rows = batch.reduce((n, c) => n + c.length / width, 0);
    try {
      await db.transaction().execute(async (trx) => {
        for (const chunk of batch) await insertMetricValues(trx, sqlFor(chunk.length / width), chunk);
      });
      counters.written += rows;
    } catch (error) {
      counters.dropped += rows;
      onError(error);
    }
  }

  /** One writer at a time; it keeps going while there is anything to write. */
  function startWriting(): Promise<void> {
    writing ??= (async () => {
      try {
        while (buffered > 0) {
          await writeBatch(takeBatch());
          // better-sqlite3 is synchronous: let requests through between batches.
          await yieldToEventLoop();
        }
      } finally {
        writing = null;
      }
    })();
    return writing;
  }

  const flushTimer =
    (options.flushIntervalMs ?? 1000) > 0
      ? setInterval(() => {
          if (buffered > 0) void startWriting();
        }, options.flushIntervalMs ?? 1000)
      : null;
  flushTimer?.unref();

  async function prune(): Promise<number> {
    const cutoffMs = clock.now().getTime() - retentionMs;
    const cutoff = new Date(cutoffMs).toISOString();
    let deleted = 0;
    // Slices of a minute from the oldest sample: each delete stays short even with millions of rows.
    for (;;) {
      const oldest = await oldestMetricTs(db);
      if (oldest === null || oldest >= cutoff) return deleted;
      const sliceEnd = Math.min(Date.parse(oldest) + pruneSliceMs, cutoffMs);
      deleted += await deleteMetricsBefore(
        db,
        Number.isNaN(sliceEnd) ? cutoff : new Date(sliceEnd).toISOString(),
      );
      await yieldToEventLoop();
    }
  }

  const retentionIntervalMs = options.retentionIntervalMs ?? 60 * 60 * 1000;
  const retentionTimer =
    retentionIntervalMs > 0
      ? setInterval(() => {
          prune().catch(onError);
        }, retentionIntervalMs)
      : null;
  retentionTimer?.unref();

  return {
    add(assetId, samples) {
      const now = clock.now().getTime();
      for (const s of samples) {
        if (closed || buffered >= maxBuffered) {
          counters.dropped += 1;
          continue;
        }
        const ts = checkTs(s.ts, now);
        if (
          ts === null ||
          !Number.isFinite(s.cpu_percent) ||
          !Number.isFinite(s.load1) ||
          !checkCount(s.memory_used_bytes) ||
          !checkCount(s.memory_total_bytes) ||
          !checkCount(s.disk_used_bytes) ||
          !checkCount(s.disk_total_bytes) ||
          !checkCount(s.net_rx_bytes) ||
          !checkCount(s.net_tx_bytes)
        ) {
          counters.rejected += 1;
          continue;
        }
        let chunk = chunks[chunks.length - 1];
        if (!chunk || chunk.length >= maxRowsPerInsert * width) {
          chunk = [];
          chunks.push(chunk);
        }
        chunk.push(
          assetId,
          ts,
          s.cpu_percent,
          s.memory_used_bytes,
          s.memory_total_bytes,
          s.disk_used_bytes,
          s.disk_total_bytes,
          s.load1,
          s.net_rx_bytes,
          s.net_tx_bytes,
        );
        buffered += 1;
      }
      if (buffered >= batchSize && !writing) void startWriting();
    },

    async flush() {
      while (buffered > 0 || writing) await startWriting();
    },

    prune,

    stats: () => ({ buffered, ...counters }),

    async close() {
      closed = true;
      if (flushTimer) clearInterval(flushTimer);
      if (retentionTimer) clearInterval(retentionTimer);
      while (buffered > 0 || writing) await startWriting();
    },
  };
}
