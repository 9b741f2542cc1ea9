/**
 * Kysely's PostgreSQL introspector reads the tables of every schema in the database. Its Migrator asks it
 * whether the migration tables exist, and a schema dropped by someone else during that read (another hub's,
 * another test file's) fails the query with "schema … does not exist": a start that fails because of a
 * neighbour. This dialect reads only the connection's own schema (its search_path), from pg_catalog without
 * any function call, so a concurrent drop elsewhere cannot touch it. The Migrator is the only user.
 */
import {
  PostgresDialect,
  sql,
  type DatabaseIntrospector,
  type Kysely,
  type SchemaMetadata,
  type TableMetadata,
} from 'kysely';

function ownSchemaIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
  async function getTables(): Promise<TableMetadata[]> {
    const result = await sql<{ name: string; schema: string; kind: string }>`
      select c.relname as name, n.nspname as schema, c.relkind as kind
      from pg_catalog.pg_class c
      join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = current_schema() and c.relkind in ('r', 'p', 'v', 'm')
      order by c.relname`.execute(db);
    return result.rows.map((row) => ({
      name: row.name,
      schema: row.schema,
      isView: row.kind === 'v' || row.kind === 'm',
      isForeign: false,
      columns: [],
    }));
  }
  return {
    async getSchemas(): Promise<SchemaMetadata[]> {
      const result = await sql<{ name: string | null }>`select current_schema() as name`.execute(db);
      return result.rows.flatMap((row) => (row.name === null ? [] : [{ name: row.name }]));
    },
    getTables,
  };
}

/** PostgreSQL as Kysely's dialect has it, but introspecting only the connection's own schema. */
export class OwnSchemaPostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return ownSchemaIntrospector(db);
  }
}
