import type SQLite from 'better-sqlite3';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

/** Statements kept per SQL text; the hub's query shapes are few (parameters are bound), this only bounds it. */
const maxCachedStatements = 1000;
const schemaChange = /^\s*(create|alter|drop)\b/i;

type Row = Record<string, unknown>;

/**
 * Builds a row object from an array of column values: a function made once per statement whose object literal
 * names the columns, so every row gets the same shape at the speed of ordinary code. The names are emitted as
 * JSON string literals, so no column name can be anything but a property name (fast-json-stringify, which
 * serializes every response, compiles its functions the same way). A repeated name keeps its last value, as in
 * better-sqlite3's own objects.
 */
function rowBuilder(names: readonly string[]): (values: unknown[]) => Row {
  const properties = names.map((name, i) => `${JSON.stringify(name)}: values[${i}]`).join(', ');
  // eslint-disable-next-line @typescript-eslint/no-implied-eval -- see above: literal keys, no code from data
  return new Function('values', `return { ${properties} };`) as (values: unknown[]) => Row;
}

/**
 * Reads rows as arrays (better-sqlite3's raw mode) and builds the objects in JavaScript: better-sqlite3 builds
 * row objects through V8's C++ API one property at a time, which costs 2–3× the whole fetch of a page of assets.
 */
function readerStatement(statement: SQLite.Statement): SqliteStatement {
  statement.raw(true);
  const toObject = rowBuilder(statement.columns().map((column) => column.name));
  return {
    reader: true,
    all: (parameters) => (statement.all(...parameters) as unknown[][]).map(toObject),
    run: (parameters) => statement.run(...parameters),
    *iterate(parameters) {
      for (const values of statement.iterate(...parameters) as IterableIterator<unknown[]>) {
        yield toObject(values);
      }
    },
  };
}

function writerStatement(statement: SQLite.Statement): SqliteStatement {
  return {
    reader: false,
    all: (parameters) => statement.all(...parameters),
    run: (parameters) => statement.run(...parameters),
    iterate: (parameters) => statement.iterate(...parameters),
  };
}

/**
 * The database Kysely's SQLite dialect talks to: prepared statements cached by SQL text (Kysely prepares every
 * query anew, and preparing costs more than running the small queries the hub makes), readers fetching raw
 * rows. A schema change (a migration) empties the cache, so no statement outlives the columns it read.
 */
export function cachedStatements(sqlite: SQLite.Database): SqliteDatabase {
  const cache = new Map<string, SqliteStatement>();
  return {
    close: () => sqlite.close(),
    prepare(sql) {
      const cached = cache.get(sql);
      if (cached) return cached;
      const prepared = sqlite.prepare(sql);
      const statement = prepared.reader ? readerStatement(prepared) : writerStatement(prepared);
      if (schemaChange.test(sql)) {
        cache.clear();
        return statement;
      }
      if (cache.size >= maxCachedStatements) cache.clear();
      cache.set(sql, statement);
      return statement;
    },
  };
}
