/**
 * The metrics ingest path: agents' samples are buffered in memory and written in batches — on SQLite one
 * multi-row INSERT per ≤ 500 rows, prepared once; on PostgreSQL one INSERT … unnest per batch — so that a fleet
 * reporting 100,000 samples a second costs a few hundred statements, not 100,000. While samples keep coming,
 * one transaction takes batch after batch (up to maxTransactionRows / maxTransactionMs), yielding to the
 * event loop between batches: a commit rewrites every index page it touched, and with thousands of assets
 * each batch touches one page of the (asset_id, ts) index per asset, so fewer, larger commits are what makes
 * ingest fast. Each batch is written in (asset_id) order, so the index is walked once per batch, left to
 * right, rather than jumped about in the order agents happened to report. The buffer is bounded: when the
 * database falls behind, new samples are dropped and counted rather than growing memory without end.
 * Retention deletes samples older than N days, hourly, asset by asset in slices short enough not to stall the
 * hub. The store remembers, per asset, the time span of the samples it committed since the rollups last took
 * it (takeRollupSpans): what the 5-minute rollups must recompute (metrics-rollups.ts, decision 0097).
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import type SQLite from 'better-sqlite3';
import type pg from 'pg';
import type { Kysely } from 'kysely';
import type { MetricsSink } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import { postgresConnectOf, sqliteHandleOf } from '../../platform/db/database.js';
import { copyIn, copyText } from '../../platform/db/pg-copy.js';
import type { Database } from '../../platform/db/schema.js';
import {
  compileMetricInsert,
  deleteAssetMetricsBatch,
  deleteMetricRollups,
  insertMetricColumns,
  maxRowsPerInsert,
  metricColumns,
  nextAssetWithMetrics,
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
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}

interface MetricsStoreStats {
  buffered: number;
  written: number;
  /** Lost: buffer full, store closed, or a failed write. */
  dropped: number;
  /** Refused: unreadable timestamp, outside retention or too far ahead, numbers out of range. */
  rejected: number;
}

/** The earliest and latest timestamps (canonical ISO text) of an asset's samples written since last taken. */
export interface SampleSpan {
  from: string;
  to: string;
}

export interface MetricsStore extends MetricsSink {
  /** Writes everything buffered so far. */
  flush(): Promise<void>;
  /**
   * Resolves once every sample buffered before the call is written (or lost). Unlike flush(), it does not
   * wait for samples that keep arriving, so a busy fleet cannot hold it off.
   */
  settled(): Promise<void>;
  /** Deletes samples older than the retention; returns how many. */
  prune(): Promise<number>;
  stats(): MetricsStoreStats;
  /** Hands over, and forgets, the span of each asset's samples committed (or pruned) since the last call. */
  takeRollupSpans(): Map<string, SampleSpan>;
  /** Gives spans back (their rollup failed), to be taken again with the next ones. */
  returnRollupSpans(spans: ReadonlyMap<string, SampleSpan>): void;
  /** Stops the timers and writes what is buffered; later samples are dropped. */
  close(): Promise<void>;
}

const width = metricColumns.length;
/** Samples per chunk of the buffer (the last chunk is being filled). */
const rowsPerChunk = maxRowsPerInsert;
const dayMs = 24 * 60 * 60 * 1000;
/** One delete of retention removes at most this many samples (of one asset). */
const pruneSliceRows = 5_000;

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The two decimal digits at `at`, or -1. */
function twoDigits(ts: string, at: number): number {
  const tens = ts.charCodeAt(at) - 48;
  const ones = ts.charCodeAt(at + 1) - 48;
  return tens >= 0 && tens <= 9 && ones >= 0 && ones <= 9 ? tens * 10 + ones : -1;
}

function isLeapYear(year: number): boolean {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}

/**
 * The time of `ts` in ms when it is exactly what Date#toISOString prints (YYYY-MM-DDTHH:mm:ss.sssZ, a real
 * date in the years 0100–9999), else NaN. One pass over the characters, on every sample an agent sends: about
 * a third of the cost of Date.parse and a regular expression.
 */
export function canonicalTsMs(ts: string): number {
  if (
    ts.length !== 24 ||
    ts.charCodeAt(4) !== 0x2d || // -
    ts.charCodeAt(7) !== 0x2d ||
    ts.charCodeAt(10) !== 0x54 || // T
    ts.charCodeAt(13) !== 0x3a || // :
    ts.charCodeAt(16) !== 0x3a ||
    ts.charCodeAt(19) !== 0x2e || // .
    ts.charCodeAt(23) !== 0x5a // Z
  ) {
    return Number.NaN;
  }
  const century = twoDigits(ts, 0);
  const yy = twoDigits(ts, 2);
  const month = twoDigits(ts, 5);
  const day = twoDigits(ts, 8);
  const hour = twoDigits(ts, 11);
  const minute = twoDigits(ts, 14);
  const second = twoDigits(ts, 17);
  const centiseconds = twoDigits(ts, 20);
  const lastDigit = ts.charCodeAt(22) - 48;
  // Years below 100 are left to Date.parse (Date.UTC would read them as 19xx).
  if (century < 1 || yy < 0 || centiseconds < 0 || !(lastDigit >= 0 && lastDigit <= 9)) return Number.NaN;
  if (month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23) return Number.NaN;
  if (minute < 0 || minute > 59 || second < 0 || second > 59) return Number.NaN;
  const year = century * 100 + yy;
  // Date.parse rolls "02-30" over into March rather than refusing it: such a day is never canonical.
  const lastDay = (daysInMonth[month - 1] as number) + (month === 2 && isLeapYear(year) ? 1 : 0);
  if (day > lastDay) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, centiseconds * 10 + lastDigit);
}

/** Whether `ts` is in the stored form as it is (re-formatting it would print exactly the same text). */
export function isCanonicalTs(ts: string): boolean {
  return !Number.isNaN(canonicalTsMs(ts));
}

/**
 * How `rows` flattened samples are cut into INSERT statements: whole statements of maxRowsPerInsert rows,
 * then powers of two. The set of statement sizes stays small and fixed (10), so each is prepared once,
 * whatever the sizes of the batches.
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

/**
 * A batch to write: its chunks of flattened samples and the order to write its rows in — row numbers across
 * the chunks, sorted by asset_id, arrival order kept within an asset (Array#sort is stable).
 */
interface OrderedBatch {
  rows: number;
  /** Values of row n: chunks[n / rowsPerChunk | 0], from (n % rowsPerChunk) * width. */
  chunks: unknown[][];
  order: number[];
}

/** Row numbers of `chunks` (all full but the last, rowsPerChunk rows each) in asset_id order. */
function orderByAsset(chunks: unknown[][]): OrderedBatch {
  const assets: string[] = [];
  for (const chunk of chunks) {
    for (let at = 0; at < chunk.length; at += width) assets.push(chunk[at] as string);
  }
  const order = Array.from({ length: assets.length }, (_, n) => n);
  order.sort((a, b) => {
    const x = assets[a] as string;
    const y = assets[b] as string;
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return { rows: assets.length, chunks, order };
}

/**
 * Visits rows [from, from + rows) of the batch in its order: the chunk holding each and where its values start
 * there, with the row's place r (0…rows - 1) in the visit.
 */
function eachRow(
  batch: OrderedBatch,
  from: number,
  rows: number,
  visit: (chunk: unknown[], at: number, r: number) => void,
): void {
  for (let r = 0; r < rows; r++) {
    const n = batch.order[from + r] as number;
    visit(batch.chunks[(n / rowsPerChunk) | 0] as unknown[], (n % rowsPerChunk) * width, r);
  }
}

/** Widens each asset's span in `spans` to the timestamps of its rows in the batch (rows are in asset order). */
function spanBatch(batch: OrderedBatch, spans: Map<string, SampleSpan>): void {
  let asset: string | null = null;
  let span: SampleSpan | undefined;
  eachRow(batch, 0, batch.rows, (chunk, at) => {
    const id = chunk[at] as string;
    const ts = chunk[at + 1] as string;
    if (id !== asset) {
      asset = id;
      span = spans.get(id);
      if (span === undefined) {
        span = { from: ts, to: ts };
        spans.set(id, span);
        return;
      }
    }
    if (span === undefined) return;
    if (ts < span.from) span.from = ts;
    else if (ts > span.to) span.to = ts;
  });
}

/** Merges `spans` into `into`, widening the spans of assets it already holds. */
function mergeSpans(into: Map<string, SampleSpan>, spans: ReadonlyMap<string, SampleSpan>): void {
  for (const [assetId, span] of spans) {
    const held = into.get(assetId);
    if (held === undefined) into.set(assetId, { ...span });
    else {
      if (span.from < held.from) held.from = span.from;
      if (span.to > held.to) held.to = span.to;
    }
  }
}

/** Runs a transaction whose body inserts ordered batches; rolled back if it throws. */
type TransactionRunner = (
  body: (insert: (batch: OrderedBatch) => Promise<void>) => Promise<void>,
) => Promise<void>;

/**
 * On SQLite, through the better-sqlite3 handle (database.ts, sqliteHandleOf) with multi-row statements
 * prepared once and run directly, while holding Kysely's lock on the one connection. On PostgreSQL, one
 * `COPY … FROM STDIN` per transaction on a connection of the pool (database.ts, postgresConnectOf), its batches
 * streamed while PostgreSQL stores the ones before (decision 0094); through Kysely, one `unnest` statement per
 * batch, for an instance openDatabase did not make. All store the same rows.
 */
function transactionRunner(db: Kysely<Database>): TransactionRunner {
  const sqlite = sqliteHandleOf(db);
  if (sqlite) return sqliteTransactionRunner(db, sqlite);
  const connect = postgresConnectOf(db);
  if (connect) return copyTransactionRunner(connect);
  return (body) =>
    db.transaction().execute((trx) =>
      body(async (batch) => {
        const columns = metricColumns.map(() => new Array<unknown>(batch.rows));
        eachRow(batch, 0, batch.rows, (chunk, at, r) => {
          for (let c = 0; c < width; c++) (columns[c] as unknown[])[r] = chunk[at + c];
        });
        await insertMetricColumns(trx, columns);
      }),
    );
}

const copyStatement = `copy metric_samples (${metricColumns.join(', ')}) from stdin`;

/** A batch as COPY text: a line a row, its values (checked strings and finite numbers) separated by tabs. */
function copyLines(batch: OrderedBatch): string {
  let lines = '';
  eachRow(batch, 0, batch.rows, (chunk, at) => {
    let line = copyText(chunk[at] as string);
    for (let c = 1; c < width; c++) line += `\t${copyText(chunk[at + c] as string | number)}`;
    lines += `${line}\n`;
  });
  return lines;
}

function copyTransactionRunner(connect: () => Promise<pg.PoolClient>): TransactionRunner {
  return async (body) => {
    const client = await connect();
    let broken = false;
    try {
      // One COPY is one statement, so one transaction of its own: all of its rows or none.
      const copy = await copyIn(client, copyStatement);
      try {
        await body((batch) => copy.write(copyLines(batch)));
      } catch (error) {
        copy.fail('metrics write abandoned');
        await copy.end().catch(() => undefined);
        throw error;
      }
      await copy.end();
    } catch (error) {
      broken = !isDatabaseError(error);
      throw error;
    } finally {
      // A connection whose copy ended in doubt (not an error PostgreSQL answered) is not reused.
      client.release(broken || undefined);
    }
  };
}

/** An error PostgreSQL answered (it names a SQLSTATE): its connection is fine for the next statement. */
function isDatabaseError(error: unknown): boolean {
  return (
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { code?: unknown }).code === 'string' &&
    /^[0-9A-Z]{5}$/.test((error as { code: string }).code)
  );
}

function sqliteTransactionRunner(db: Kysely<Database>, sqlite: SQLite.Database): TransactionRunner {
  // Per statement size: the statement, prepared once, and its parameter array, allocated once.
  const prepared = new Map<number, { statement: SQLite.Statement; values: unknown[] }>();
  const statementFor = (rows: number) => {
    let entry = prepared.get(rows);
    if (entry === undefined) {
      entry = {
        statement: sqlite.prepare(compileMetricInsert(db, rows, { orFail: true })),
        values: new Array<unknown>(rows * width),
      };
      prepared.set(rows, entry);
    }
    return entry;
  };
  const isOpen = (): boolean => sqlite.inTransaction;
  const begin = sqlite.prepare('begin');
  const commit = sqlite.prepare('commit');
  const rollback = sqlite.prepare('rollback');
  const insert = (batch: OrderedBatch): Promise<void> => {
    let from = 0;
    for (const rows of statementSizes(batch.rows)) {
      const { statement, values } = statementFor(rows);
      eachRow(batch, from, rows, (chunk, at, r) => {
        for (let c = 0; c < width; c++) values[r * width + c] = chunk[at + c];
      });
      statement.run(values);
      from += rows;
    }
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

  // Chunks of flattened samples, rowsPerChunk rows each; the last one is being filled.
  const chunks: unknown[][] = [];
  let buffered = 0;
  const counters = { written: 0, dropped: 0, rejected: 0 };
  // Samples leave the buffer in the order they entered it: all those buffered before a settled() call are
  // out once `settledRows` reaches the `bufferedRows` it saw.
  let bufferedRows = 0;
  let settledRows = 0;
  let settleWaiters: { target: number; resolve: () => void }[] = [];
  let closed = false;
  let writing: Promise<void> | null = null;
  // Per asset, the span of the samples committed since the rollups last took them.
  let rollupSpans = new Map<string, SampleSpan>();
  const inTransaction = transactionRunner(db);
  const dialect = sqliteHandleOf(db) ? 'sqlite' : 'postgres';

  /** The canonical ISO timestamp, or null when the sample must be refused. */
  function checkTs(ts: string, now: number): string | null {
    // Stored in one canonical form, so that text comparison is time order on both databases. What agents send
    // is nearly always canonical already: it is read in one pass and kept as it is.
    let ms = canonicalTsMs(ts);
    const canonical = !Number.isNaN(ms);
    if (!canonical) ms = Date.parse(ts);
    if (Number.isNaN(ms) || ms < now - retentionMs || ms > now + maxFutureSkewMs) return null;
    return canonical ? ts : new Date(ms).toISOString();
  }

  function checkCount(n: number): boolean {
    return Number.isSafeInteger(n) && n >= 0;
  }

  /** The next batch: whole chunks from the front of the buffer, at least batchSize rows when there are. */
  function takeBatch(): OrderedBatch {
    const rowsPerBatch = Math.max(batchSize, rowsPerChunk);
    const taken: unknown[][] = [];
    let rows = 0;
    while (chunks.length > 0 && rows < rowsPerBatch) {
      const chunk = chunks.shift() as unknown[];
      taken.push(chunk);
      rows += chunk.length / width;
    }
    buffered -= rows;
    return orderByAsset(taken);
  }

  /**
   * One transaction: batches for as long as samples are waiting, within the row and time bounds, yielding
   * to the event loop between batches (sockets are served; other database work waits for the commit).
   */
  async function writeTransaction(): Promise<void> {
    let rows = 0;
    const spans = new Map<string, SampleSpan>();
    try {
      await inTransaction(async (insert) => {
        const started = performance.now();
        while (buffered > 0 && rows < maxTransactionRows && performance.now() - started < maxTransactionMs) {
          const batch = takeBatch();
          rows += batch.rows;
          await insert(batch);
          spanBatch(batch, spans);
          await yieldToEventLoop();
        }
      });
      counters.written += rows;
      mergeSpans(rollupSpans, spans);
    } catch (error) {
      counters.dropped += rows;
      onError(error);
    }
    settledRows += rows;
    if (settleWaiters.length > 0) {
      const done = settleWaiters.filter((w) => w.target <= settledRows);
      settleWaiters = settleWaiters.filter((w) => w.target > settledRows);
      for (const w of done) w.resolve();
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

  /**
   * Asset by asset, through the (asset_id, ts) index (there is no index on ts alone): each asset's expired
   * samples go in deletes of at most pruneSliceRows rows, so each stays short whatever the table holds (even
   * thousands of samples stamped alike), and an asset with nothing expired costs one index lookup.
   */
  async function prune(): Promise<number> {
    const cutoff = new Date(clock.now().getTime() - retentionMs).toISOString();
    let deleted = 0;
    let after: string | null = null;
    for (;;) {
      const next = await nextAssetWithMetrics(db, after);
      if (next === null) return deleted;
      after = next.assetId;
      if (next.oldestTs < cutoff) {
        deleted += await pruneAsset(next.assetId, cutoff);
        // Rollups that start before the cutoff go; the one it cuts is recomputed from the samples left.
        await deleteMetricRollups(db, next.assetId, Math.floor(Date.parse(cutoff) / 1000));
        mergeSpans(rollupSpans, new Map([[next.assetId, { from: cutoff, to: cutoff }]]));
      }
      await yieldToEventLoop();
    }
  }

  async function pruneAsset(assetId: string, cutoff: string): Promise<number> {
    let deleted = 0;
    for (;;) {
      const slice = await deleteAssetMetricsBatch(db, dialect, assetId, pruneSliceRows, cutoff);
      deleted += slice;
      if (slice < pruneSliceRows) return deleted;
      await yieldToEventLoop();
    }
  }

  const retentionIntervalMs = options.retentionIntervalMs ?? 60 * 60 * 1000;
  const retentionTimer =
    retentionIntervalMs > 0
      ? setInterval(() => {
          if (options.runsHere && !options.runsHere()) return;
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
        if (!chunk || chunk.length >= rowsPerChunk * width) {
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
        bufferedRows += 1;
      }
      if (buffered >= batchSize && !writing) void startWriting();
    },

    settled() {
      if (settledRows >= bufferedRows) return Promise.resolve();
      const target = bufferedRows;
      void startWriting();
      return new Promise<void>((resolve) => settleWaiters.push({ target, resolve }));
    },

    async flush() {
      while (buffered > 0 || writing) await startWriting();
    },

    prune,

    stats: () => ({ buffered, ...counters }),

    takeRollupSpans() {
      const taken = rollupSpans;
      rollupSpans = new Map();
      return taken;
    },

    returnRollupSpans(spans) {
      mergeSpans(rollupSpans, spans);
    },

    async close() {
      closed = true;
      if (flushTimer) clearInterval(flushTimer);
      if (retentionTimer) clearInterval(retentionTimer);
      while (buffered > 0 || writing) await startWriting();
    },
  };
}
