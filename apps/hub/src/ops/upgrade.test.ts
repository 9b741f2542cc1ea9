import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { Migrator, type Migration } from 'kysely/migration';
import { afterEach, describe, expect, it } from 'vitest';
import { parseEnv } from '../config/env.js';
import { createHub } from '../hub.js';
import { systemOwnerContext } from '../access/principal.js';
import { DatabaseNewerThanHub, TransactionalSqliteDialect } from '../platform/db/database.js';
import { migrations } from '../platform/db/migrations.js';
import { silentLogger } from '../platform/logger.js';
import { runHubCli } from './program.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-upgrade-test-'));
  dirs.push(dir);
  return path.join(dir, 'data');
}

const config = (dir: string) =>
  parseEnv({ SVC_DATA_DIR: dir, SVC_TLS_MODE: 'disabled', SVC_BCRYPT_COST: '4' }, dir);

async function cli(argv: string[], dir: string) {
  let stdout = '';
  let stderr = '';
  const code = await runHubCli(argv, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    config: () => config(dir),
    serve: () => Promise.reject(new Error('not in this test')),
  });
  return { code, stdout, stderr };
}

/* eslint-disable @typescript-eslint/no-explicit-any -- a database of an older schema than the typed one */
function openRaw(dir: string): Kysely<any> {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  return new Kysely<any>({
    dialect: new TransactionalSqliteDialect({ database: new SQLite(path.join(dir, 'hub.sqlite')) }),
  });
}

/** A database as the previous hub version left it: every migration but the last, with data in it. */
async function previousVersionDatabase(dir: string): Promise<{ previous: string[]; last: string }> {
  const names = Object.keys(migrations);
  const previous = names.slice(0, -1);
  const last = names.at(-1) ?? '';
  const db = openRaw(dir);
  const older = Object.fromEntries(previous.map((name) => [name, migrations[name] as Migration]));
  const { error } = await new Migrator({
    db,
    provider: { getMigrations: () => Promise.resolve(older) },
  }).migrateToLatest();
  expect(error).toBeUndefined();
  const now = '2026-11-01T00:00:00.000Z';
  await db
    .insertInto('assets')
    .values({
      id: 'ast_01upgradeupgradeupgrade0',
      name: 'from-the-old-version',
      platform: 'linux',
      status: 'offline',
      source: 'manual',
      ip_addresses: '["192.0.2.7"]',
      tags: '["old"]',
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db
    .insertInto('alert_rules')
    .values({
      id: 'alr_01upgradeupgradeupgrade0',
      name: 'cpu high',
      kind: 'cpu',
      severity: 'warning',
      threshold_percent: 90,
      duration_minutes: 5,
      asset_ids: '[]',
      enabled: 1,
      created_at: now,
      updated_at: now,
    })
    .execute();
  await db.destroy();
  return { previous, last };
}

describe('upgrades', () => {
  it('migrate --dry-run lists what would run and changes nothing; the new hub then upgrades with the data kept', async () => {
    const dir = dataDir();
    const { previous, last } = await previousVersionDatabase(dir);

    const dry = await cli(['migrate', '--dry-run'], dir);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    expect(dry.stdout).toBe(`Would run 1 migration(s), in order, in one transaction:\n  ${last}\n`);
    const raw = openRaw(dir);
    const { rows } = await sql<{ name: string }>`select name from kysely_migration order by name`.execute(
      raw,
    );
    await raw.destroy();
    expect(rows.map((r) => r.name)).toEqual(previous);

    const hub = await createHub({ config: config(dir), logger: silentLogger });
    try {
      const asset = await hub.services.assets.get(
        systemOwnerContext().principal,
        'ast_01upgradeupgradeupgrade0',
      );
      expect(asset).toMatchObject({
        name: 'from-the-old-version',
        tags: ['old'],
        ip_addresses: ['192.0.2.7'],
      });
      const rule = await hub.database.db
        .selectFrom('alert_rules')
        .selectAll()
        .where('id', '=', 'alr_01upgradeupgradeupgrade0')
        .executeTakeFirstOrThrow();
      expect(rule).toMatchObject({ name: 'cpu high', threshold_percent: 90 });
      const ready = await hub.app.inject({ method: 'GET', url: '/readyz' });
      expect(ready.json()).toEqual({ status: 'ready' });
    } finally {
      await hub.close();
    }
    expect((await cli(['migrate', '--dry-run'], dir)).stdout).toContain('up to date');
  });

  it('migrate --dry-run on a data directory without a database lists every migration and creates nothing', async () => {
    const dir = path.join(dataDir(), 'not-yet');
    const dry = await cli(['migrate', '--dry-run'], dir);
    expect(dry.stderr).toBe('');
    expect(dry.code).toBe(0);
    const lines = dry.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^Would run \d+ migration\(s\)/);
    expect(lines.slice(1).map((l) => l.trim())).toEqual(Object.keys(migrations));
    expect(fs.existsSync(dir)).toBe(false);
  });

  it('a hub refuses a database a newer hub migrated, saying which and what to do', async () => {
    const dir = dataDir();
    await previousVersionDatabase(dir);
    const first = await createHub({ config: config(dir), logger: silentLogger });
    await first.close();
    const raw = openRaw(dir);
    await raw
      .insertInto('kysely_migration')
      .values({ name: '9999_from_the_future', timestamp: 'x' })
      .execute();
    await raw.destroy();

    const refused = createHub({ config: config(dir), logger: silentLogger });
    await expect(refused).rejects.toThrow(DatabaseNewerThanHub);
    await expect(refused).rejects.toThrow(/newer hub.*9999_from_the_future.*run the newer hub version again/);
    const dry = await cli(['migrate', '--dry-run'], dir);
    expect(dry.code).toBe(2);
    expect(dry.stderr).toContain('9999_from_the_future');
    // The refused start left the database as it was.
    expect(fs.existsSync(path.join(dir, 'hub.sqlite'))).toBe(true);
  });

  it('runs pending migrations in one transaction on SQLite: a failing one leaves nothing half done', async () => {
    const dir = dataDir();
    const db = openRaw(dir);
    const failing: Record<string, Migration> = {
      '0001_ok': { up: (k) => k.schema.createTable('kept').addColumn('id', 'text').execute() },
      '0002_broken': {
        up: async (k) => {
          await k.schema.createTable('half').addColumn('id', 'text').execute();
          throw new Error('broken migration');
        },
      },
    };
    const { error } = await new Migrator({
      db,
      provider: { getMigrations: () => Promise.resolve(failing) },
    }).migrateToLatest();
    const tables = (await db.introspection.getTables()).map((t) => t.name);
    await db.destroy();

    expect(String(error)).toContain('broken migration');
    expect(tables).not.toContain('half');
    expect(tables).not.toContain('kept');
  });
});
/* eslint-enable @typescript-eslint/no-explicit-any */
