/**
 * ingest: metric samples per second committed by the hub's metrics store (createMetricsStore, in-process),
 * on SQLite and then on PostgreSQL, against a bare multi-row INSERT loop of the same rows on the same
 * database (better-sqlite3 / pg, no store, no validation) measured in the same run. Target: ≥ 100,000
 * samples/s sustained on SQLite.
 *
 * The samples are generated before the clock starts: BENCH_ASSETS assets (default 2,000) × a pool of
 * distinct timestamps, replayed in order, one sample per add() call (the shape of an agent's metrics frame).
 * The producer never lets the store's buffer overflow (it yields while the buffer is above half of its
 * bound), so nothing is dropped: the figure is what the store commits, counted in the table at the end.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { systemClock } from '@svc/hub';
import type { MetricSample } from '@svc/protocol';
import { openDatabase, type HubDatabase } from '../apps/hub/src/platform/db/database.js';
import { countMetricSamples, metricColumns } from '../apps/hub/src/modules/metrics/metrics.repository.js';
import { createMetricsStore } from '../apps/hub/src/modules/metrics/metrics.store.js';
import { writeResult, type Figure } from './lib/report.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const assetCount = Number(process.env.BENCH_ASSETS ?? 2000);
const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const skipPostgres = process.env.BENCH_SKIP_POSTGRES === 'true';
/** Distinct samples per asset in the pool; replayed when used up (the table has no uniqueness). */
const perAsset = Number(process.env.BENCH_POOL_PER_ASSET ?? 50);
const rowsPerInsert = 500;
const rowsPerTransaction = 5000;
const width = metricColumns.length;

interface Frame {
  assetId: string;
  samples: MetricSample[];
}

/** Samples one second apart, ending a minute ago (inside the store's retention and skew window). */
function generatePool(): Frame[] {
  const end = Date.now() - 60_000;
  const frames: Frame[] = [];
  for (let j = 0; j < perAsset; j++) {
    const ts = new Date(end - (perAsset - j) * 1000).toISOString();
    for (let a = 0; a < assetCount; a++) {
      frames.push({
        assetId: `ast_bench${String(a).padStart(6, '0')}`,
        samples: [
          {
            ts,
            cpu_percent: (a * 7 + j) % 100,
            memory_used_bytes: 2_000_000_000 + a,
            memory_total_bytes: 8_000_000_000,
            disk_used_bytes: 50_000_000_000 + j,
            disk_total_bytes: 200_000_000_000,
            load1: ((a + j) % 400) / 100,
            net_rx_bytes: 1_000_000 + j * 13,
            net_tx_bytes: 500_000 + j * 7,
          },
        ],
      });
    }
  }
  return frames;
}

/** The same rows, flattened in metricColumns order, for the bare baseline. */
function flatten(pool: Frame[]): unknown[][] {
  return pool.map(({ assetId, samples: [s] }) => {
    if (!s) throw new Error('empty frame');
    return [
      assetId,
      s.ts,
      s.cpu_percent,
      s.memory_used_bytes,
      s.memory_total_bytes,
      s.disk_used_bytes,
      s.disk_total_bytes,
      s.load1,
      s.net_rx_bytes,
      s.net_tx_bytes,
    ];
  });
}

interface Run {
  rows: number;
  seconds: number;
  perSecond: number;
}

function rate(rows: number, ms: number): Run {
  return { rows, seconds: ms / 1000, perSecond: rows / (ms / 1000) };
}

/** Feeds the store for `seconds`, then flushes; the rate is what the table holds over the whole time. */
async function runStore(database: HubDatabase, pool: Frame[]): Promise<Run> {
  const maxBuffered = 250_000;
  const store = createMetricsStore({
    db: database.db,
    clock: systemClock,
    maxBuffered,
    retentionIntervalMs: 0,
    onError: (error) => {
      throw error;
    },
  });
  const highWater = maxBuffered / 2;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  let i = 0;
  let added = 0;
  while (performance.now() < deadline) {
    for (let k = 0; k < 1000; k++) {
      const frame = pool[i] as Frame;
      store.add(frame.assetId, frame.samples);
      i = i + 1 === pool.length ? 0 : i + 1;
    }
    added += 1000;
    // The producer stands in for many sockets: it waits for the writer like the event loop would.
    while (store.stats().buffered >= highWater) await yieldToEventLoop();
  }
  await store.close();
  const ms = performance.now() - started;
  const stats = store.stats();
  if (stats.dropped > 0 || stats.rejected > 0) {
    throw new Error(`the store dropped ${stats.dropped} and refused ${stats.rejected} samples`);
  }
  const rows = await countMetricSamples(database.db);
  if (rows !== added || stats.written !== added) {
    throw new Error(`added ${added} samples but the table holds ${rows} (store says ${stats.written})`);
  }
  return rate(rows, ms);
}

/** Bare better-sqlite3: one prepared 500-row INSERT, 5,000 rows per transaction, same pragmas and indexes. */
function runBareSqlite(file: string, rows: unknown[][]): Run {
  const sqlite = new SQLite(file);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  try {
    const placeholders = `(${Array.from({ length: width }, () => '?').join(', ')})`;
    const insert = sqlite.prepare(
      `insert into metric_samples (${metricColumns.join(', ')}) values ${Array.from({ length: rowsPerInsert }, () => placeholders).join(', ')}`,
    );
    const values = new Array<unknown>(rowsPerInsert * width);
    let i = 0;
    const writeTransaction = sqlite.transaction(() => {
      for (let s = 0; s < rowsPerTransaction / rowsPerInsert; s++) {
        let v = 0;
        for (let r = 0; r < rowsPerInsert; r++) {
          const row = rows[i] as unknown[];
          i = i + 1 === rows.length ? 0 : i + 1;
          for (let c = 0; c < width; c++) values[v++] = row[c];
        }
        insert.run(values);
      }
    });
    const started = performance.now();
    const deadline = started + seconds * 1000;
    let written = 0;
    while (performance.now() < deadline) {
      writeTransaction();
      written += rowsPerTransaction;
    }
    const ms = performance.now() - started;
    const counted = (sqlite.prepare('select count(*) as n from metric_samples').get() as { n: number }).n;
    if (counted !== written) throw new Error(`bare SQLite wrote ${written} rows, the table holds ${counted}`);
    return rate(counted, ms);
  } finally {
    sqlite.close();
  }
}

/** Bare pg: one 500-row INSERT with $n parameters, 5,000 rows per transaction, one connection. */
async function runBarePostgres(schema: string, rows: unknown[][]): Promise<Run> {
  const client = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
  await client.connect();
  try {
    const text = `insert into metric_samples (${metricColumns.join(', ')}) values ${Array.from(
      { length: rowsPerInsert },
      (_, r) => `(${Array.from({ length: width }, (_c, c) => `$${r * width + c + 1}`).join(', ')})`,
    ).join(', ')}`;
    let i = 0;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    let written = 0;
    while (performance.now() < deadline) {
      await client.query('begin');
      for (let s = 0; s < rowsPerTransaction / rowsPerInsert; s++) {
        const values: unknown[] = [];
        for (let r = 0; r < rowsPerInsert; r++) {
          const row = rows[i] as unknown[];
          i = i + 1 === rows.length ? 0 : i + 1;
          for (let c = 0; c < width; c++) values.push(row[c]);
        }
        await client.query({ name: 'bench-insert', text, values });
      }
      await client.query('commit');
      written += rowsPerTransaction;
    }
    const ms = performance.now() - started;
    const counted = Number(
      (await client.query<{ n: string }>('select count(*) as n from metric_samples')).rows[0]?.n,
    );
    if (counted !== written) throw new Error(`bare pg wrote ${written} rows, the table holds ${counted}`);
    return rate(counted, ms);
  } finally {
    await client.end();
  }
}

async function withSqlite<T>(work: (database: HubDatabase, file: string) => Promise<T>): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ingest-'));
  try {
    const database = await openDatabase({ databaseUrl: null, dataDir });
    try {
      return await work(database, path.join(dataDir, 'hub.sqlite'));
    } finally {
      await database.close();
    }
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function withPostgres<T>(work: (database: HubDatabase, schema: string) => Promise<T>): Promise<T> {
  const schema = `bench_ingest_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-ingest-'));
    try {
      const database = await openDatabase({ databaseUrl: postgresUrl, dataDir, pgSchema: schema });
      try {
        return await work(database, schema);
      } finally {
        await database.close();
      }
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`);
    await admin.end();
  }
}

const best = (runs: Run[]): Run => runs.reduce((a, b) => (b.perSecond > a.perSecond ? b : a));
const fmt = (r: Run) =>
  `${Math.round(r.perSecond).toLocaleString('en-US')} samples/s (${r.rows.toLocaleString('en-US')} rows in ${r.seconds.toFixed(1)} s)`;

export async function runIngestBench(): Promise<void> {
  const pool = generatePool();
  const flat = flatten(pool);
  const log = (line: string) => process.stdout.write(`${line}\n`);

  // Alternating rounds, each on a fresh database: the better of each kind counts (the machine is shared).
  const sqliteStore: Run[] = [];
  const sqliteBare: Run[] = [];
  for (let r = 0; r < rounds; r++) {
    sqliteBare.push(await withSqlite((_db, file) => Promise.resolve(runBareSqlite(file, flat))));
    log(`sqlite bare  round ${r + 1}: ${fmt(sqliteBare[r] as Run)}`);
    sqliteStore.push(await withSqlite((db) => runStore(db, pool)));
    log(`sqlite store round ${r + 1}: ${fmt(sqliteStore[r] as Run)}`);
  }
  const pgStore: Run[] = [];
  const pgBare: Run[] = [];
  if (!skipPostgres) {
    for (let r = 0; r < rounds; r++) {
      pgBare.push(await withPostgres((_db, schema) => runBarePostgres(schema, flat)));
      log(`pg bare      round ${r + 1}: ${fmt(pgBare[r] as Run)}`);
      pgStore.push(await withPostgres((db) => runStore(db, pool)));
      log(`pg store     round ${r + 1}: ${fmt(pgStore[r] as Run)}`);
    }
  }

  const s = best(sqliteStore);
  const sb = best(sqliteBare);
  const figures: Figure[] = [
    {
      name: 'SQLite: metrics store',
      value: fmt(s),
      target: '≥ 100,000 samples/s',
      met: s.perSecond >= 100_000,
    },
    { name: '  bare better-sqlite3 multi-row INSERT', value: fmt(sb) },
    { name: '  ratio store / bare', value: (s.perSecond / sb.perSecond).toFixed(2) },
  ];
  if (pgStore.length > 0) {
    const p = best(pgStore);
    const pb = best(pgBare);
    figures.push(
      { name: 'PostgreSQL: metrics store', value: fmt(p) },
      { name: '  bare pg multi-row INSERT', value: fmt(pb) },
      { name: '  ratio store / bare', value: (p.perSecond / pb.perSecond).toFixed(2) },
    );
  }
  writeResult({
    benchmark: 'ingest',
    command: 'npm run bench -- ingest',
    summary: `Metric samples committed per second by the hub's metrics store (createMetricsStore, in-process, default batching), ${seconds} s per run, ${assetCount.toLocaleString('en-US')} assets, one sample per add() call, rows counted in the table at the end; the best of ${rounds} alternating rounds, each on a fresh database. Baseline: a bare loop of prepared ${rowsPerInsert}-row INSERTs, ${rowsPerTransaction.toLocaleString('en-US')} rows per transaction, of the same pre-generated rows on the same schema (two indexes), measured in the same run. PostgreSQL is the local server over loopback, in a schema of its own dropped afterwards.`,
    figures,
    notes: [
      'The store validates every sample (timestamp window, number ranges) and canonicalises its timestamp; the baseline does neither, so the ratio is the price of the checks, the buffering and the batching.',
    ],
  });
}
