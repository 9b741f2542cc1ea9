/**
 * Migration 0024 on rows an older hub stored with one `owner` (issue 28): a key id becomes an `api_key` owner,
 * a user id a `session` owner (that user's console and admins; no longer every key of that user), and the
 * `unknown` a caller with neither was given names nobody. On SQLite, and on PostgreSQL where the tests have it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgSchema } from '@svc/testkit';
import { TransactionalSqliteDialect } from '../database.js';
import { migrations } from '../migrations.js';

/* eslint-disable @typescript-eslint/no-explicit-any -- a database of an older schema than the typed one */
interface Opened {
  db: Kysely<any>;
  migrationTableSchema?: string;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function openSqlite(): Opened {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-migration-0024-'));
  const db = new Kysely<any>({
    dialect: new TransactionalSqliteDialect({ database: new SQLite(path.join(dir, 'hub.sqlite')) }),
  });
  return {
    db,
    close: async () => {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function openPostgres(url: string): Promise<Opened> {
  const { schema, drop } = await createPgSchema(url);
  const pool = new pg.Pool({ connectionString: url, max: 2, options: `-c search_path=${schema}` });
  const db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    migrationTableSchema: schema,
    close: async () => {
      await db.destroy();
      await drop();
    },
  };
}

async function migrateThrough(opened: Opened, names: string[]): Promise<void> {
  const chosen = Object.fromEntries(names.map((name) => [name, migrations[name] as Migration]));
  const { error } = await new Migrator({
    db: opened.db,
    provider: { getMigrations: () => Promise.resolve(chosen) },
    ...(opened.migrationTableSchema ? { migrationTableSchema: opened.migrationTableSchema } : {}),
  }).migrateToLatest();
  expect(error).toBeUndefined();
}

const targets: { name: string; open: () => Promise<Opened> }[] = [
  { name: 'sqlite', open: () => Promise.resolve(openSqlite()) },
  ...(process.env.SVC_TEST_DATABASE_URL
    ? [{ name: 'postgres', open: () => openPostgres(process.env.SVC_TEST_DATABASE_URL ?? '') }]
    : []),
];

describe.each(targets)('migration 0024: desktop owners as terminals name them ($name)', ({ open }) => {
  it('types the owners of stored desktop sessions and recordings by their ids', async () => {
    const opened = await open();
    cleanups.push(() => opened.close());
    const names = Object.keys(migrations);
    const before = names.filter((name) => name < '0024');
    expect(before.length).toBeLessThan(names.length);
    await migrateThrough(opened, before);

    const now = '2026-11-01T00:00:00.000Z';
    const owners = {
      user: 'usr_01oldowneroldowneroldown0',
      key: 'key_01oldkeyoldkeyoldkeyold0',
      none: 'unknown',
    };
    for (const [n, owner] of Object.values(owners).entries()) {
      await opened.db
        .insertInto('desktop_recordings')
        .values({
          id: `drc_0${String(n)}`,
          session_id: `dsk_0${String(n)}`,
          asset_id: 'ast_01',
          owner,
          started_at: now,
          ended_at: now,
          bytes: 1,
        })
        .execute();
      await opened.db
        .insertInto('desktop_sessions')
        .values({ id: `dsk_0${String(n)}`, asset_id: 'ast_01', owner, node_id: 'node-a', created_at: now })
        .execute();
    }

    await migrateThrough(opened, names);

    const expected = [
      { owner_type: 'session', owner_id: owners.user },
      { owner_type: 'api_key', owner_id: owners.key },
      { owner_type: 'session', owner_id: owners.none },
    ];
    for (const table of ['desktop_recordings', 'desktop_sessions']) {
      const rows = await opened.db
        .selectFrom(table)
        .select(['id', 'owner_type', 'owner_id'])
        .orderBy('id')
        .execute();
      expect(
        rows.map((r: Record<string, unknown>) => ({ owner_type: r.owner_type, owner_id: r.owner_id })),
      ).toEqual(expected);
    }
  });
});
/* eslint-enable @typescript-eslint/no-explicit-any */
