import type {
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryId,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';

/**
 * A counter per table that moves after every write to it made through this Kysely instance. A read cache stamps
 * what it keeps with the counter it saw before reading and serves it only while the counter is unchanged.
 *
 * Sound only where no read can see a committed state older than the counter: SQLite, where Kysely runs every
 * query and transaction on one connection in turn, so a reader never runs inside someone else's open
 * transaction. Over a PostgreSQL pool a reader can see the state before a transaction whose write already moved
 * the counter commits, and other hub processes write without moving it: callers cache only on SQLite.
 *
 * Writes it does not see: those through the raw better-sqlite3 handle (sqliteHandleOf: the metrics store, which
 * writes only metric_samples) and queries built elsewhere and run as CompiledQuery.raw (none in the hub). A
 * compiled-once.ts template is seen: it keeps the query id its compile registered.
 */
export interface WriteVersions {
  of(table: string): number;
  /** Moves the counter of a table by hand: for state kept outside the database that a cache also shows. */
  touch(table: string): void;
}

interface Node {
  kind?: unknown;
}

/** Every table an insert, update, delete or merge names anywhere in its tree (more is harmless, fewer is not). */
function tablesIn(node: unknown, found: Set<string>): void {
  if (Array.isArray(node)) {
    for (const item of node) tablesIn(item, found);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  const candidate = node as Node & { table?: { identifier?: { name?: unknown } } };
  if (candidate.kind === 'TableNode' && typeof candidate.table?.identifier?.name === 'string') {
    found.add(candidate.table.identifier.name);
  }
  for (const value of Object.values(node)) tablesIn(value, found);
}

const everyTable = '*';

export function createWriteVersions(): { versions: WriteVersions; plugin: KyselyPlugin } {
  const counters = new Map<string, number>();
  const pending = new WeakMap<QueryId, string[]>();
  const bump = (table: string) => counters.set(table, (counters.get(table) ?? 0) + 1);

  const plugin: KyselyPlugin = {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      const { node } = args;
      if (node.kind === 'SelectQueryNode') return node;
      if (node.kind === 'RawNode') {
        pending.set(args.queryId, [everyTable]);
        return node;
      }
      const found = new Set<string>();
      tablesIn(node, found);
      if (found.size > 0) pending.set(args.queryId, [...found]);
      return node;
    },
    // After the statement ran, never before: a reader that sees the new counter must also see the write.
    transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      const tables = pending.get(args.queryId);
      if (tables) for (const table of tables) bump(table);
      return Promise.resolve(args.result);
    },
  };

  return {
    plugin,
    versions: {
      of: (table) => (counters.get(table) ?? 0) + (counters.get(everyTable) ?? 0),
      touch: bump,
    },
  };
}
