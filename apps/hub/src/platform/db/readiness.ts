import { sql, type Kysely } from 'kysely';
import { migrations } from './migrations.js';
import type { Database } from './schema.js';

/** What the database says about readiness: answering with this hub's schema, not answering, or another schema. */
export type DatabaseReadiness = 'ok' | 'database' | 'migrations';

/** A check that hangs (a pool waiting on an unreachable server) answers `database` after this long. */
const readinessTimeoutMs = 2_000;

/**
 * Asks the database which migrations it has run: one cheap query that proves the connection and tells whether
 * the schema is exactly this hub's (every known migration done, none unknown to it).
 */
export async function checkDatabaseReadiness(
  db: Kysely<Database>,
  timeoutMs: number = readinessTimeoutMs,
): Promise<DatabaseReadiness> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'database'>((resolve) => {
    timer = setTimeout(() => {
      resolve('database');
    }, timeoutMs);
  });
  const check = sql<{ name: string }>`select name from kysely_migration`.execute(db).then(
    ({ rows }): DatabaseReadiness => {
      const known = Object.keys(migrations);
      const done = new Set(rows.map((r) => r.name));
      const complete = known.every((name) => done.has(name)) && done.size === known.length;
      return complete ? 'ok' : 'migrations';
    },
    (): DatabaseReadiness => 'database',
  );
  try {
    return await Promise.race([check, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The database's size in bytes: SQLite's pages in use, or the tables and indexes of the hub's PostgreSQL
 * schema (the one on its search path).
 */
export async function databaseSizeBytes(
  db: Kysely<Database>,
  dialect: 'sqlite' | 'postgres',
): Promise<number> {
  if (dialect === 'sqlite') {
    const { rows } = await sql<{
      bytes: number;
    }>`select page_count * page_size as bytes from pragma_page_count(), pragma_page_size()`.execute(db);
    return rows[0]?.bytes ?? 0;
  }
  const { rows } = await sql<{ bytes: string | null }>`
    select sum(pg_total_relation_size(c.oid))::text as bytes
    from pg_class c join pg_namespace n on n.oid = c.relnamespace
    where n.nspname = current_schema() and c.relkind in ('r', 'm')`.execute(db);
  return Number(rows[0]?.bytes ?? 0);
}
