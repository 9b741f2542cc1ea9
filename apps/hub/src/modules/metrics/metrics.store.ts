/**
 * The metrics ingest path: agents' samples are buffered in memory and written in batches — on SQLite one
 * multi-row INSERT per ≤ 500 rows, prepared once; on PostgreSQL one INSERT … unnest per batch — so that a fleet
 * reporting 100,000 samples a second costs a few hundred statements, not 100,000. While samples keep coming,
 * one transaction takes batch after batch (up to maxTransactionRows / maxTransactionMs), yielding to the
 * event loop between batches: a commit rewrites every index page it touched, and with thousands of assets
 * each batch touches one page of the (asset_id, ts) index per asset, so fewer, larger commits are what makes
 * ingest fast. The buffer is bounded: when the database falls behind, new samples are dropped and counted
 * rather than growing memory without end. Retention deletes samples older than N days, hourly, in slices
 * short enough not to stall the hub.
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import type { Kysely } from 'kysely';
import type { MetricsSink } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import { sqliteHandleOf } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import {
  compileMetricInsert,
  deleteMetricsBefore,
  insertMetricColumns,
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
  /** Samples written between two yields to the event loop; reaching it starts a write at once (default 5,000). */
  batchSize?: number;
  /** A transaction takes further batches while samples are waiting, up to this many rows (default 100,000)… */
  maxTransactionRows?: number;
  /** …and for this long (default 250 ms); then it commits and the next one starts. */
  maxTransactionMs?: number;
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

/** Exactly what Date#toISOString prints (years 0000–9999), for a day of month that every month has. */
const canonicalTsPattern =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|1\d|2[0-8])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d\.\d{3}Z$/;

/**
 * Whether `ts` (already readable by Date.parse) is in the stored form as it is. Days 29–31 are left to
 * re-formatting, because Date.parse rolls "02-30" over into March rather than refusing it.
 */
export function isCanonicalTs(ts: string): boolean {
  return canonicalTsPattern.test(ts);
}

/**
 * How a chunk of `rows` flattened samples is cut into INSERT statements: whole statements of
 * maxRowsPerInsert rows, then powers of two. The set of statement sizes stays small and fixed (10), so each
 * is prepared once, whatever the sizes of the batches.
 */
export function statementSizes(rows: number): number[] {
  const sizes: number[] = [];
  let left = rows;
  while (left >= maxRowsPerInsert) {
    sizes.push(maxRowsPerInsert);
    left -= maxRowsPerInsert;
  }
  for (let size = 256; size >= 1; size >>= 1) {
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

/** Calls `run` for each statement of a chunk, with that statement's slice of the values. */
function eachStatement(chunk: unknown[], run: (rows: number, values: unknown[]) => void): void {
  const sizes = statementSizes(chunk.length / width);
  if (sizes.length === 1) {
    run(sizes[0] as number, chunk);
    return;
  }
  let at = 0;
  for (const rows of sizes) {
    run(rows, chunk.slice(at, at + rows * width));
    at += rows * width;
  }
}

/** Runs a transaction whose body inserts batches (chunks of flattened samples); rolled back if it throws. */
type TransactionRunner = (
  body: (insert: (batch: unknown[][]) => Promise<void>) => Promise<void>,
) => Promise<void>;

/**
 * On SQLite, through the better-sqlite3 handle (database.ts, sqliteHandleOf) with multi-row statements
 * prepared once and run directly, while holding Kysely's lock on the one connection; on PostgreSQL through a
 * Kysely transaction, one `unnest` statement per batch. Both store the same rows.
 */
function transactionRunner(db: Kysely<Database>): TransactionRunner {
  const sqlite = sqliteHandleOf(db);
  if (sqlite) return sqliteTransactionRunner(db, sqlite);
  return (body) =>
    db.transaction().execute((trx) =>
      body(async (batch) => {
        const columns = metricColumns.map(() => [] as unknown[]);
        for (const chunk of batch) {
          for (let at = 0; at < chunk.length; at += width) {
            for (let c = 0; c < width; c++) (columns[c] as unknown[]).push(chunk[at + c]);
          }
        }
        await insertMetricColumns(trx, columns);
      }),
    );
}

function sqliteTransactionRunner(db: Kysely<Database>, sqlite: SQLite.Database): TransactionRunner {
  const prepared = new Map<number, SQLite.Statement>();
  const statementFor = (rows: number): SQLite.Statement => {
    let statement = prepared.get(rows);
    if (statement === undefined) {
      statement = sqlite.prepare(compileMetricInsert(db, rows, { orFail: true }));
      prepared.set(rows, statement);
    }
    return statement;
  };
  const isOpen = (): boolean => sqlite.inTransaction;
  const begin = sqlite.prepare('begin');
  const commit = sqlite.prepare('commit');
  const rollback = sqlite.prepare('rollback');
  const insert = (batch: unknown[][]): Promise<void> => {
    for (const chunk of batch) eachStatement(chunk, (rows, values) => statementFor(rows).run(values));
    return Promise.resolve();
  };
  return (body) =>
    db.connection().execute(async () => {
      // Kysely's lock is held, so no transaction of its own is open here, and none starts until this ends.
      if (isOpen()) throw new Error('metrics write: the SQLite connection is inside a transaction');
      begin.run();
      try {
        await body(insert);
        commit.run();
      } catch (error) {
        if (isOpen()) rollback.run();
        throw error;
      }
    });
}

export function createMetricsStore(options: MetricsStoreOptions): MetricsStore {
  const { db, clock } = options;
  const retentionMs = (options.retentionDays ?? 7) * dayMs;
  const batchSize = Math.max(1, options.batchSize ?? 5_000);
  const maxTransactionRows = Math.max(batchSize, options.maxTransactionRows ?? 100_000);
  const maxTransactionMs = options.maxTransactionMs ?? 250;
  const maxBuffered = Math.max(1, options.maxBuffered ?? 250_000);
  const maxFutureSkewMs = options.maxFutureSkewMs ?? 10 * 60 * 1000;
  const onError = options.onError ?? (() => undefined);

  // Full chunks of flattened samples, ≤ maxRowsPerInsert rows each; the last one is being filled.
  const chunks: unknown[][] = [];
  let buffered = 0;
  const counters = { written: 0, dropped: 0, rejected: 0 };
  let closed = false;
  let writing: Promise<void> | null = null;
  const inTransaction = transactionRunner(db);

  /** The canonical ISO timestamp, or null when the sample must be refused. */
  function checkTs(ts: string, now: number): string | null {
    const ms = Date.parse(ts);
    if (Number.isNaN(ms) || ms < now - retentionMs || ms > now + maxFutureSkewMs) return null;
    // Stored in one canonical form, so that text comparison is time order on both databases. What agents send
    // is nearly always canonical already; re-formatting it would cost more than the rest of add().
    return isCanonicalTs(ts) ? ts : new Date(ms).toISOString();
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

  /**
   * One transaction: batches for as long as samples are waiting, within the row and time bounds, yielding
   * to the event loop between batches (sockets are served; other database work waits for the commit).
   */
  async function writeTransaction(): Promise<void> {
    let rows = 0;
    try {
      await inTransaction(async (insert) => {
        const started = performance.now();
        while (buffered > 0 && rows < maxTransactionRows && performance.now() - started < maxTransactionMs) {
          const batch = takeBatch();
          for (const chunk of batch) rows += chunk.length / width;
          await insert(batch);
          await yieldToEventLoop();
        }
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
          await writeTransaction();
          // Between transactions, requests waiting for the database get their turn.
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
