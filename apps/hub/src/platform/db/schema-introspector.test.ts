/**
 * Several hubs (or test files) on one PostgreSQL database, each in its own schema: a hub's migrator looks only
 * at its own schema, so a neighbour's tables, or a neighbour's schema dropped meanwhile, cannot fail its start.
 */
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgSchema } from '@svc/testkit';
import { openDatabase, type HubDatabase } from './database.js';

const url = process.env.SVC_TEST_DATABASE_URL;

async function run(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

describe.skipIf(!url)('a hub in its own PostgreSQL schema', () => {
  const cleanup: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });

  async function openIn(schema: string): Promise<HubDatabase> {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-introspect-'));
    const database = await openDatabase({ databaseUrl: url ?? '', dataDir, pgSchema: schema });
    cleanup.push(async () => {
      await database.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    });
    return database;
  }

  it("lists only its own schema's tables, never a neighbour's", async () => {
    const own = await createPgSchema(url ?? '');
    const neighbour = await createPgSchema(url ?? '');
    cleanup.push(own.drop, neighbour.drop);
    await run(`create table ${neighbour.schema}.neighbours_only (id int)`);

    const database = await openIn(own.schema);
    const tables = await database.db.introspection.getTables();
    const names = tables.map((t) => t.name);
    expect(names).toContain('assets');
    expect(names).not.toContain('neighbours_only');
    expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([own.schema]));
  });

  it('starts while neighbours are created and dropped around it', async () => {
    const own = await createPgSchema(url ?? '');
    cleanup.push(own.drop);
    // Neighbours come and go while the migration runs; with an all-schema read this failed now and then.
    const churning = { on: true };
    const churn = (async () => {
      for (let i = 0; i < 200 && churning.on; i += 1) {
        const neighbour = await createPgSchema(url ?? '');
        await run(`create table ${neighbour.schema}.t (id int primary key, v text)`);
        await neighbour.drop();
      }
    })();
    try {
      const database = await openIn(own.schema);
      const again = await openIn(own.schema);
      expect((await again.db.introspection.getTables()).map((t) => t.name)).toContain('assets');
      expect(database.dialect).toBe('postgres');
    } finally {
      churning.on = false;
      await churn;
    }
  });
});
