/**
 * A migrated SQLite database, made once per test process and copied into each test hub's new data directory
 * (decision 0045): the hub then finds every migration applied instead of running them all, which took tens of
 * milliseconds per hub. The copy is what the migrations leave on an empty file: no rows.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const fileName = 'hub.sqlite';
let template: Promise<string> | null = null;

async function makeTemplate(): Promise<string> {
  // Loaded here: the setup file imports this module in every hub and e2e test file, most of which never need it.
  const { openDatabase } = await import('@svc/hub');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-template-'));
  const database = await openDatabase({ databaseUrl: null, dataDir: dir });
  // Closing the last connection checkpoints the WAL into the file: one file holds it all.
  await database.close();
  return path.join(dir, fileName);
}

/** Removes the template: the end of a test file (the hub tiers' setup file). */
export async function removeSqliteTemplate(): Promise<void> {
  const made = template;
  template = null;
  const file = await made?.catch(() => null);
  if (file) fs.rmSync(path.dirname(file), { recursive: true, force: true });
}

/** Puts a migrated, empty hub.sqlite into `dataDir` unless one is there already. */
export async function seedMigratedSqlite(dataDir: string): Promise<void> {
  const target = path.join(dataDir, fileName);
  if (fs.existsSync(target)) return;
  template ??= makeTemplate();
  const source = await template;
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  fs.copyFileSync(source, target, fs.constants.COPYFILE_EXCL);
  fs.chmodSync(target, 0o600);
}
