/**
 * PostgreSQL schemas for test hubs. `createPgSchema` makes a fresh, empty one (the hub opening it runs every
 * migration). `takePgSchema` is what startTestHub uses (decision 0045): a schema an earlier hub of the same test
 * process migrated and then emptied, or a fresh one when there is none. Creating, migrating and dropping a
 * schema took about 1.5 s per hub; emptying its tables takes milliseconds.
 *
 * A schema is reused only when nothing can tell it from a fresh one: every table emptied in one transaction,
 * its tables, columns and indexes as the migrations left them, and no other hub joined it (one could still
 * write into it). Otherwise it is dropped as before. Tests of the migrations themselves make their schema with
 * `createPgSchema`.
 */
import pg from 'pg';

export interface PgSchema {
  schema: string;
  drop: () => Promise<void>;
}

/** A fresh schema in the PostgreSQL at `url`, for a hub of its own; `drop` removes it and all in it. */
export async function createPgSchema(url: string): Promise<PgSchema> {
  const schema = `t_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  await query(url, `create schema ${schema}`);
  return { schema, drop: () => query(url, `drop schema if exists ${schema} cascade`) };
}

export interface ReusablePgSchema extends PgSchema {
  /** Whether the hub opening it will migrate it (a fresh schema), rather than find it migrated. */
  readonly fresh: boolean;
  /** Call once the hub has migrated a fresh schema: the shape every later release is checked against. */
  migrated(): Promise<void>;
  /** Another hub opened it too: on release it is dropped, not reused. */
  shared(): void;
  /** Empties it for the next hub of this process (or drops it, see above). */
  drop: () => Promise<void>;
}

interface Spare {
  schema: string;
  shape: string;
}

/**
 * Only schemas on the test database every hub test shares are kept: another URL (a proxy in front of it that
 * a test breaks and closes) may be gone by the end of the file.
 */
const pooledUrl = () => process.env.SVC_TEST_DATABASE_URL;

/** Emptied schemas by PostgreSQL URL, each with the shape its migrations left. */
const spares = new Map<string, Spare[]>();
/** Schemas handed out now, by name: `shared()` is reached through this from a joining hub. */
const inUse = new Map<string, ReusablePgSchema>();

/** A migrated schema this process emptied, or a fresh one. */
export async function takePgSchema(url: string): Promise<ReusablePgSchema> {
  const spare = spares.get(url)?.pop();
  const schema = spare?.schema ?? (await createPgSchema(url)).schema;
  let shape = spare?.shape ?? null;
  let sharedWith = false;
  const lease: ReusablePgSchema = {
    schema,
    fresh: spare === undefined,
    async migrated() {
      shape = await shapeOf(url, schema);
    },
    shared() {
      sharedWith = true;
    },
    async drop() {
      inUse.delete(schema);
      const reusable =
        url === pooledUrl() && shape !== null && !sharedWith && (await emptied(url, schema, shape));
      if (reusable && shape !== null) {
        const list = spares.get(url) ?? [];
        list.push({ schema, shape });
        spares.set(url, list);
        return;
      }
      await query(url, `drop schema if exists ${schema} cascade`);
    },
  };
  inUse.set(schema, lease);
  return lease;
}

/** Marks a schema startTestHub handed out as opened by a second hub (`joinDatabaseOf`, `pgSchema`). */
export function markPgSchemaShared(schema: string): void {
  inUse.get(schema)?.shared();
}

/** Drops every emptied schema this process keeps: the end of a test file (the hub tiers' setup file). */
export async function dropSparePgSchemas(): Promise<void> {
  const all = [...spares.entries()];
  spares.clear();
  for (const [url, list] of all) {
    for (const { schema } of list) await query(url, `drop schema if exists ${schema} cascade`);
  }
}

/** Tables, columns, indexes and applied migrations: what a test could have changed besides the rows. */
async function shapeOf(url: string, schema: string, client?: pg.Client): Promise<string> {
  const text = `select
      (select string_agg(table_name || '.' || column_name || ':' || data_type || ':' || is_nullable || ':' ||
              coalesce(column_default, ''), ',' order by table_name, column_name)
         from information_schema.columns where table_schema = $1) || '|' ||
      (select string_agg(tablename || '.' || indexname, ',' order by tablename, indexname)
         from pg_indexes where schemaname = $1) || '|' ||
      (select string_agg(name, ',' order by name) from ${schema}.kysely_migration) as shape`;
  const run = async (c: pg.Client) =>
    (await c.query<{ shape: string | null }>(text, [schema])).rows[0]?.shape;
  const shape = client ? await run(client) : await withClient(url, run);
  return shape ?? '';
}

/**
 * Deletes every row but the migrations' bookkeeping, in one transaction. DELETE, not TRUNCATE: TRUNCATE gives
 * each table new files, which took as long as migrating. Foreign keys are not checked meanwhile (replica
 * role): every table ends empty, so none can be broken. False when the schema's shape changed or the delete
 * failed (a lock held by a connection left open, a role without the right to set the replica role).
 */
async function emptied(url: string, schema: string, shape: string): Promise<boolean> {
  try {
    return await withClient(url, async (client) => {
      if ((await shapeOf(url, schema, client)) !== shape) return false;
      const { rows } = await client.query<{ tablename: string }>(
        `select tablename from pg_tables where schemaname = $1 and tablename not like 'kysely\\_migration%'`,
        [schema],
      );
      await client.query('begin');
      try {
        await client.query(`set local lock_timeout = '5s'`);
        await client.query('set local session_replication_role = replica');
        for (const { tablename } of rows) await client.query(`delete from ${schema}."${tablename}"`);
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      }
      return true;
    });
  } catch {
    return false;
  }
}

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

async function query(url: string, text: string): Promise<void> {
  await withClient(url, (client) => client.query(text));
}
