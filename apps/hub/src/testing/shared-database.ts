/**
 * Two hub processes' database handles on one store, for tests of what several processes do at once
 * (decision 0040): one SQLite file opened twice, or one PostgreSQL schema with a pool per handle.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createPgSchema } from '@svc/testkit';
import { openDatabase, type HubDatabase } from '../platform/db/database.js';

export interface SharedDatabase {
  name: string;
  handles: HubDatabase[];
  close(): Promise<void>;
}

/**
 * The stores a cross-process test runs on: SQLite (one file, two handles, for what needs no concurrent
 * transactions), and PostgreSQL when SVC_TEST_DATABASE_URL is set (CI sets it).
 */
export function sharedDatabaseTargets(): { name: string; url: string | null }[] {
  const url = process.env.SVC_TEST_DATABASE_URL;
  return [{ name: 'sqlite', url: null }, ...(url ? [{ name: 'postgres', url }] : [])];
}

/**
 * PostgreSQL's URL for races between processes' transactions, which only a server arbitrates (two SQLite
 * handles in one process block each other's writes; several hub processes need PostgreSQL anyway).
 */
export const sharedPostgresUrl = (): string | null => process.env.SVC_TEST_DATABASE_URL ?? null;

export async function openSharedDatabase(url: string | null, count = 2): Promise<SharedDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-shared-db-'));
  const schema = url ? await createPgSchema(url) : null;
  const handles: HubDatabase[] = [];
  // One after the other: the first migrates, the others find the schema current.
  for (let i = 0; i < count; i++) {
    handles.push(
      await openDatabase({ databaseUrl: url, dataDir, ...(schema ? { pgSchema: schema.schema } : {}) }),
    );
  }
  return {
    name: url ? 'postgres' : 'sqlite',
    handles,
    async close() {
      for (const handle of handles) await handle.close();
      await schema?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
