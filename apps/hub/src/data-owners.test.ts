/**
 * One owner per table (`tableOwners` in platform/db/schema.ts): no source file outside a table's owner builds a
 * query on it, through Kysely (selectFrom, insertInto, updateTable, deleteFrom, joins, with) or raw `sql`
 * text naming it. Others ask the owner's service, or a port the owner hands down. Reads the hub's source;
 * starts nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tableOwners } from './platform/db/schema.js';

const src = path.dirname(fileURLToPath(import.meta.url));
const tables = new Set(Object.keys(tableOwners));

/**
 * Code that works on tables in general, not on one area's rows; each entry says why.
 */
const generalExceptions: readonly { path: string; why: string }[] = [
  {
    path: 'platform/db/migrations',
    why: 'migrations shape and convert every table; they are the schema history, not a reader of it',
  },
];

/**
 * A statement that must name another owner's table to stay one statement; each entry says why it cannot ask
 * the owner. Keep it short: a new entry needs as good a reason.
 */
const crossOwnerStatements: readonly { file: string; table: keyof typeof tableOwners; why: string }[] = [
  {
    file: 'agents/agent-credentials.repository.ts',
    table: 'assets',
    why: 'a credential authenticates only while its asset exists, checked in the lookup itself (no race with a delete)',
  },
  {
    file: 'modules/assets/assets.repository.ts',
    table: 'group_members',
    why: "the asset list's group filter is a subquery of the one paged query, and a deleted asset leaves its groups in the same transaction",
  },
  {
    file: 'modules/assets/connector-assets.repository.ts',
    table: 'group_members',
    why: "assets a connector's sync removes leave their groups in the same transaction",
  },
  {
    file: 'modules/keys/keys.repository.ts',
    table: 'users',
    why: "a key acts with no more than its user's role now, read with the key in its lookup (decision 0077)",
  },
  {
    file: 'modules/metrics/metrics.repository.ts',
    table: 'assets',
    why: 'the latest sample of each existing asset is one indexed descent per asset: a join that must run in the database',
  },
];

const queryCall =
  /\.(selectFrom|insertInto|replaceInto|updateTable|deleteFrom|mergeInto|innerJoin|leftJoin|rightJoin|fullJoin|crossJoin|with)\(\s*(['"`])([a-z_]+)/g;
/** A raw fragment's text: `sql` tag (optionally typed) up to its closing backtick. */
const rawSql = /\bsql(?:<[^`]*?>)?`([^`]*)`/g;
const rawTable = /\b(?:from|join|into|update|table|exists)\s+"?([a-z_]+)/gi;

interface Use {
  file: string;
  table: string;
  line: number;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    const rel = path.relative(src, full).split(path.sep).join('/');
    if (entry.isDirectory()) {
      // Test wiring and end-to-end tests arrange data as they need, like the tests beside the code.
      if (rel === 'testing' || entry.name === 'e2e') continue;
      out.push(...sourceFiles(full));
    } else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts')) {
      out.push(rel);
    }
  }
  return out;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split('\n').length;
}

/** The tables a file's queries name, with where. */
export function tableUses(file: string, text: string): Use[] {
  const uses: Use[] = [];
  for (const match of text.matchAll(queryCall)) {
    uses.push({ file, table: match[3] ?? '', line: lineOf(text, match.index) });
  }
  for (const fragment of text.matchAll(rawSql)) {
    for (const match of (fragment[1] ?? '').matchAll(rawTable)) {
      const table = (match[1] ?? '').toLowerCase();
      if (tables.has(table)) uses.push({ file, table, line: lineOf(text, fragment.index) });
    }
  }
  return uses;
}

function owns(owner: string, file: string): boolean {
  return file === owner || file.startsWith(`${owner}/`);
}

function violations(): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(src)) {
    if (generalExceptions.some((e) => owns(e.path, file))) continue;
    const text = fs.readFileSync(path.join(src, file), 'utf8');
    for (const use of tableUses(file, text)) {
      if (!tables.has(use.table)) continue;
      const owner = tableOwners[use.table as keyof typeof tableOwners];
      if (owns(owner, file)) continue;
      if (crossOwnerStatements.some((e) => e.file === file && e.table === use.table)) continue;
      found.push(`${file}:${use.line} builds a query on ${use.table} (owned by ${owner})`);
    }
  }
  return found;
}

describe('table owners', () => {
  it('finds queries by builder call and raw sql text', () => {
    const code = [
      "db.selectFrom('assets as a').innerJoin('group_members', 'x', 'y')",
      'trx\n  .deleteFrom(\n    "schedules")',
      'sql<SqlBool>`not exists (select 1 from cluster_nodes where node_id = ${id})`',
    ].join('\n');

    expect(tableUses('x.ts', code).map((u) => u.table)).toEqual([
      'assets',
      'group_members',
      'schedules',
      'cluster_nodes',
    ]);
  });

  it('names an owner that exists for every table', () => {
    const missing = Object.entries(tableOwners).filter(([, owner]) => !fs.existsSync(path.join(src, owner)));

    expect(missing).toEqual([]);
  });

  it("leaves each table's queries to its owner", () => {
    expect(violations()).toEqual([]);
  });

  it('keeps every listed exception in use', () => {
    const stale = crossOwnerStatements.filter(({ file, table }) => {
      const full = path.join(src, file);
      return (
        !fs.existsSync(full) || !tableUses(file, fs.readFileSync(full, 'utf8')).some((u) => u.table === table)
      );
    });

    expect(stale).toEqual([]);
  });
});
