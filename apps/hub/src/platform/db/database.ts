import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteAdapter, SqliteDialect, sql, type DialectAdapter } from 'kysely';
import { Migrator } from 'kysely/migration';
import pg from 'pg';
import { migrationProvider, migrations } from './migrations.js';
import { hubVersion } from '../version.js';
import { OwnSchemaPostgresDialect } from './schema-introspector.js';
import { isSocketFailure, markDatabaseUnreachable } from './unreachable.js';
import { cachedStatements } from './sqlite-statements.js';
import { createWriteVersions, type WriteVersions } from './write-versions.js';
import type { Database } from './schema.js';

export type DatabaseDialect = 'sqlite' | 'postgres';

export interface HubDatabase {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /**
   * Per-table write counters for read caches (write-versions.ts); null where caching by them is not sound
   * (PostgreSQL: a pool of connections, and possibly other hub processes).
   */
  writeVersions: WriteVersions | null;
  /** PostgreSQL's connection pool now (the hub's /metrics); null on SQLite, which has one connection. */
  poolStats(): PoolStats | null;
  close(): Promise<void>;
}

interface PoolStats {
  total: number;
  idle: number;
  /** Callers waiting for a connection. */
  waiting: number;
}

export interface DatabaseOptions {
  /** PostgreSQL URL; null selects the embedded SQLite file in `dataDir`. */
  databaseUrl: string | null;
  dataDir: string;
  /** PostgreSQL schema to use (tests isolate themselves in their own). */
  pgSchema?: string;
  /** SQLite file name inside dataDir, or ':memory:'. */
  sqliteFile?: string;
}

/** The database was migrated by a newer hub: this one must not run on it (migrations are forward-only). */
export class DatabaseNewerThanHub extends Error {
  constructor(readonly unknownMigrations: readonly string[]) {
    super(
      `the database was upgraded by a newer hub: it has run migrations this hub (version ${hubVersion}) does not know (${unknownMigrations.join(', ')}). ` +
        'Migrations are forward-only: run the newer hub version again, or restore a backup taken before the upgrade (docs/operations.md).',
    );
  }
}

/** What `migrate` would do: the migrations not run yet, in order, and any this hub does not know. */
export interface MigrationPlan {
  pending: string[];
  unknown: string[];
}

async function executedMigrations(db: Kysely<Database>): Promise<string[] | null> {
  try {
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(db);
    return rows.map((r) => r.name);
  } catch {
    // No bookkeeping table: a database no hub has migrated yet.
    return null;
  }
}

async function planOf(db: Kysely<Database>): Promise<MigrationPlan> {
  const done = new Set((await executedMigrations(db)) ?? []);
  const known = Object.keys(migrations);
  return {
    pending: known.filter((name) => !done.has(name)),
    unknown: [...done].filter((name) => !(name in migrations)).sort(),
  };
}

/** Opens the database and brings its schema up to date; refuses one a newer hub has migrated. */
export async function openDatabase(options: DatabaseOptions): Promise<HubDatabase> {
  const hub = openConnection(options);
  try {
    await migrationLocks.get(hub.db)?.(async () => {
      const { unknown } = await planOf(hub.db);
      if (unknown.length > 0) throw new DatabaseNewerThanHub(unknown);
      await migrate(hub.db, options.databaseUrl ? options.pgSchema : undefined);
    });
  } catch (error) {
    await hub.close();
    throw error;
  }
  return hub;
}

type MigrationLock = (migrate: () => Promise<void>) => Promise<void>;

/** How each database serializes the migrations of several processes opening it at once. */
const migrationLocks = new WeakMap<Kysely<Database>, MigrationLock>();

/**
 * Several hub processes starting together on one PostgreSQL migrate once: each holds a session advisory lock
 * (on a connection of its own, keyed by the schema) around the whole check-and-migrate, so the others wait
 * and then find nothing pending. Kysely's own lock covers only the migrations, not the creation of its
 * bookkeeping tables, which races on a fresh schema.
 */
function postgresMigrationLock(pool: pg.Pool, schema: string | undefined): MigrationLock {
  return async (run) => {
    const client = await pool.connect();
    const key = `svc-hub migrations ${schema ?? 'public'}`;
    try {
      await client.query('select pg_advisory_lock(hashtext($1))', [key]);
      await run();
    } finally {
      // Closing the lock's connection releases the lock, whatever state the connection is in.
      client.release(true);
    }
  };
}

/** `svc-hub migrate --dry-run`: what would run on this database, changing nothing. */
export async function planMigrations(options: DatabaseOptions): Promise<MigrationPlan> {
  // Opening a SQLite file creates it: a data directory without a database has every migration to run.
  if (!options.databaseUrl && !fs.existsSync(path.join(options.dataDir, options.sqliteFile ?? 'hub.sqlite')))
    return { pending: Object.keys(migrations), unknown: [] };
  const hub = openConnection(options);
  try {
    return await planOf(hub.db);
  } finally {
    await hub.close();
  }
}

function openConnection(options: DatabaseOptions): HubDatabase {
  return options.databaseUrl ? openPostgres(options.databaseUrl, options.pgSchema) : openSqlite(options);
}

/**
 * SQLite runs DDL inside transactions, but Kysely's adapter says it does not, so its migrator would run them
 * bare. Saying so makes the pending migrations run in one transaction, as on PostgreSQL: a migration that
 * fails leaves the database as it was before the upgrade.
 */
class TransactionalSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

export class TransactionalSqliteDialect extends SqliteDialect {
  override createAdapter(): DialectAdapter {
    return new TransactionalSqliteAdapter();
  }
}

function openSqlite(options: DatabaseOptions): HubDatabase {
  const file = options.sqliteFile ?? 'hub.sqlite';
  let location = file;
  if (file !== ':memory:') {
    fs.mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
    location = path.join(options.dataDir, file);
    // Made 0600 before SQLite opens it: SQLite gives the -wal and -shm files the mode of the database file.
    fs.closeSync(fs.openSync(location, 'a', 0o600));
    fs.chmodSync(location, 0o600);
  }
  const sqlite = new SQLite(location);
  // WAL: readers never block the writer. synchronous=NORMAL in WAL mode keeps every committed transaction
  // across a process crash (the OS holds the WAL pages); only a power cut can lose the last commits.
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('busy_timeout = 5000');
  // A page cache of up to 64 MiB (the default is 2 MiB, filled only as pages are used): metrics ingest touches
  // one leaf page of the (asset_id, ts) index per reporting asset in every commit, and with thousands of assets
  // those pages no longer fit in 2 MiB, so each insert re-read its page and dirty pages spilled mid-transaction
  // (bench/ingest.bench.ts: about +20 % samples/s at 2,000–10,000 assets).
  sqlite.pragma('cache_size = -65536');
  // SQLite's own lower() folds ASCII only; searches lower both sides, so without this 'ÄRGER' would not match
  // 'ärger' on SQLite while it does on PostgreSQL.
  sqlite.function('lower', { deterministic: true }, (value: unknown) =>
    typeof value === 'string' ? value.toLowerCase() : value,
  );
  const { versions, plugin } = createWriteVersions();
  const db = new Kysely<Database>({
    dialect: new TransactionalSqliteDialect({ database: cachedStatements(sqlite) }),
    plugins: [plugin],
  });
  sqliteHandles.set(db, sqlite);
  // One process per SQLite file (the data directory's lock): nothing to serialize.
  migrationLocks.set(db, (run) => run());
  return {
    db,
    dialect: 'sqlite',
    writeVersions: versions,
    poolStats: () => null,
    close: () => db.destroy(),
  };
}

const sqliteHandles = new WeakMap<Kysely<Database>, SQLite.Database>();
const postgresConnects = new WeakMap<Kysely<Database>, () => Promise<pg.PoolClient>>();

/**
 * Escape hatch for bulk inserts (the metrics store): the better-sqlite3 handle behind a Kysely instance that
 * openDatabase made, or null for PostgreSQL or any other instance. It lets a hot path reuse its own prepared
 * statements and run its own transactions without Kysely's per-query work.
 *
 * Use it only inside `db.connection().execute(...)`: that holds Kysely's lock on the one SQLite connection, so
 * no Kysely transaction is open underneath and nothing else runs on the connection until the callback ends.
 */
export function sqliteHandleOf(db: Kysely<Database>): SQLite.Database | null {
  return sqliteHandles.get(db) ?? null;
}

/**
 * The same escape hatch on PostgreSQL (the metrics store's COPY, platform/db/pg-copy.ts): a connection of the
 * pool behind a Kysely instance that openDatabase made, or null for SQLite or any other instance. Its failures
 * are marked as Kysely's are (a database out of reach answers 503); release() it when done.
 */
export function postgresConnectOf(db: Kysely<Database>): (() => Promise<pg.PoolClient>) | null {
  return postgresConnects.get(db) ?? null;
}

function openPostgres(url: string, schema: string | undefined): HubDatabase {
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // A connection the server (or the network) drops emits 'error': on the pool when it was idle, on the client
  // when it was checked out between two queries (inside a transaction). Unhandled, either ends the process. The
  // pool discards a broken client by itself, and the next query reports what is wrong (and /readyz says it).
  pool.on('error', () => undefined);
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  // A connection that cannot be opened is the database out of reach, whatever the cause (a refused connect, a
  // server starting up): marked so that the request answers 503, not 500 (platform/db/unreachable.ts).
  const reachable = {
    connect: () =>
      pool.connect().then(markSocketFailures, (error: unknown) => {
        throw markDatabaseUnreachable(error);
      }),
    end: () => pool.end(),
    // Kysely 0.29 asks for the pool's options (it opens its query-cancelling connection with them).
    options: pool.options,
  };
  const db = new Kysely<Database>({ dialect: new OwnSchemaPostgresDialect({ pool: reachable }) });
  migrationLocks.set(db, postgresMigrationLock(pool, schema));
  postgresConnects.set(db, reachable.connect);
  return {
    db,
    dialect: 'postgres',
    writeVersions: null,
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
}

const watchedClients = new WeakSet<pg.PoolClient>();

/**
 * A statement on a connection whose socket fails (reset, broken pipe) is rejected with the socket's own error
 * (`read ECONNRESET`), which names no SQLSTATE: marked here, where it is known to come from the database, so the
 * request answers 503 rather than 500 (platform/db/unreachable.ts). Each pooled client is wrapped once.
 */
function markSocketFailures(client: pg.PoolClient): pg.PoolClient {
  if (watchedClients.has(client)) return client;
  watchedClients.add(client);
  const query = client.query.bind(client) as (...args: unknown[]) => unknown;
  const watched = (...args: unknown[]): unknown => {
    const result = query(...args);
    return result instanceof Promise
      ? result.catch((error: unknown) => {
          throw isSocketFailure(error) ? markDatabaseUnreachable(error) : error;
        })
      : result;
  };
  Object.assign(client, { query: watched });
  return client;
}

async function migrate(db: Kysely<Database>, schema: string | undefined): Promise<void> {
  // With a schema of its own, the migration bookkeeping lives there too: several hubs (or test runs) on one
  // PostgreSQL database never see each other's migration lock.
  const migrator = new Migrator({
    db,
    provider: migrationProvider,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    const reason =
      error instanceof Error ? error.message : `migration ${failed?.migrationName ?? 'unknown'} failed`;
    throw new Error(`database migration failed: ${reason}`);
  }
}
