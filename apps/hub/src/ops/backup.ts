/**
 * `svc-hub backup <file>` and `svc-hub restore <file>`: one tar archive holding the database (SQLite through its
 * online backup API, consistent while the hub writes; PostgreSQL through pg_dump), the data directory's files
 * (TLS, sealed private keys, the owner's first-run credentials), the built-in CA's sealed key, and a manifest.
 *
 * The hub key (`encryption.key`, which unseals every stored secret) is left out unless asked for
 * (`--include-key`): an archive that travels to backup storage should not open its own secrets. The operator
 * keeps the key apart and gives it back at restore (`--key-file`), or sets SVC_ENCRYPTION_KEY.
 *
 * The data directory's few files that hold a live credential in clear (the local agent's settings, the owner's
 * first-run password: platform/data-dir.ts) travel sealed with the hub key, under `sealed/`; restore opens them
 * with the key it needs anyway. Everything else in the archive is sealed or hashed already, so a stolen backup
 * without the key opens nothing. A value sealed with the key in the manifest lets restore refuse a wrong key.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import type { HubConfig } from '../config/env.js';
import { DatabaseNewerThanHub, planMigrations } from '../platform/db/database.js';
import { migrations } from '../platform/db/migrations.js';
import { lockFileName } from '../platform/data-dir-lock.js';
import { clearCredentialFiles } from '../platform/data-dir.js';
import { encryptionKeyFile, loadSecretBox, SecretBoxError, type SecretBox } from '../platform/secret-box.js';
import { hubVersion } from '../platform/version.js';

const run = promisify(execFile);

const manifestName = 'svc-backup.json';
const dataFolder = 'data';
const caKeyFolder = 'ca-key';
const sealedFolder = 'sealed';
const sqliteFile = 'hub.sqlite';
const pgDumpFile = 'database.pgdump';
/** Files of a running SQLite database that the online backup replaces, and the running hub's lock. */
const notCopied = new Set([sqliteFile, `${sqliteFile}-wal`, `${sqliteFile}-shm`, lockFileName]);
/** Tools run with a bound: a dump of a homelab hub takes seconds, not hours. */
const toolTimeoutMs = 30 * 60 * 1000;

export class OperationRefused extends Error {}

/** 2: credential files sealed under `sealed/`, and `key_check`; a hub that reads only 1 refuses it. */
const formatVersion = 2;

interface Manifest {
  format: 'svc-hub-backup';
  format_version: 1 | 2;
  hub_version: string;
  created_at: string;
  database: 'sqlite' | 'postgres';
  migrations: string[];
  key_included: boolean;
  /** Paths (relative to the data directory, `/`-separated) of the files under `sealed/`. */
  sealed_files?: string[];
  /** `keyCheckText` sealed with the hub key: restore opens it first, to refuse a wrong key with a clear reason. */
  key_check?: string;
}

const keyCheckText = 'svc-hub-backup';
const keyCheckContext = 'backup:key-check';
const sealedFileContext = (relative: string) => `backup:file:${relative}`;

export interface BackupResult {
  file: string;
  database: 'sqlite' | 'postgres';
  keyIncluded: boolean;
  /** Where the hub key lives, for the operator to keep apart (a path, or the variable that holds it). */
  keyLocation: string;
}

type BackupConfig = Pick<
  HubConfig,
  'dataDir' | 'databaseUrl' | 'tlsCaKeyDir' | 'encryptionKey' | 'retiredEncryptionKeys'
>;

/** `a/b` for `a<sep>b`: the archive's names are the same on every platform. */
const portable = (relative: string) => relative.split(path.sep).join('/');

/** The hub key of `dataDir` (SVC_ENCRYPTION_KEY, else its encryption.key); null when it has none (never made). */
function hubKeyBox(config: BackupConfig, dataDir: string, envKey: string | null): SecretBox | null {
  if (!envKey && !fs.existsSync(path.join(dataDir, encryptionKeyFile))) return null;
  return loadSecretBox({ dataDir, key: envKey, retired: config.retiredEncryptionKeys });
}

/** Copies `from` into `to`, leaving out each file or folder whose full source path `skip` says. */
function copyTree(from: string, to: string, skip: (source: string) => boolean): void {
  fs.mkdirSync(to, { recursive: true, mode: 0o700 });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    const source = path.join(from, entry.name);
    if (skip(source)) continue;
    const target = path.join(to, entry.name);
    if (entry.isDirectory()) copyTree(source, target, skip);
    else if (entry.isFile()) fs.copyFileSync(source, target);
  }
}

async function tarCreate(file: string, dir: string): Promise<void> {
  const temp = `${file}.partial`;
  await run('tar', ['-C', dir, '-cf', temp, '.'], { timeout: toolTimeoutMs });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

async function tarExtract(file: string, dir: string): Promise<void> {
  // --no-same-owner: files belong to whoever restores; the archive is ours, but never trust paths in it.
  try {
    await run('tar', ['-C', dir, '-xf', file, '--no-same-owner', '--no-same-permissions'], {
      timeout: toolTimeoutMs,
    });
  } catch (error) {
    const reason = (error as { stderr?: string }).stderr?.trim() ?? String(error);
    throw new OperationRefused(`${file} is not a readable svc hub backup (tar: ${reason})`);
  }
}

/** Makes a consistent copy of a hub's data, while it runs, in one archive at `file` (0600). */
export async function createBackup(
  config: BackupConfig,
  file: string,
  options: { includeKey: boolean; pgDump?: string },
): Promise<BackupResult> {
  const target = path.resolve(file);
  if (fs.existsSync(target)) throw new OperationRefused(`${target} exists; choose a new file name`);
  const database = config.databaseUrl ? 'postgres' : 'sqlite';
  const dbFile = path.join(config.dataDir, sqliteFile);
  if (database === 'sqlite' && !fs.existsSync(dbFile))
    throw new OperationRefused(`no hub database at ${dbFile}: is SVC_DATA_DIR the hub's data directory?`);
  const staging = fs.mkdtempSync(path.join(path.dirname(target), '.svc-backup-'));
  try {
    const box = hubKeyBox(config, config.dataDir, config.encryptionKey);
    if (!box)
      throw new OperationRefused(
        `no hub key: ${path.join(config.dataDir, encryptionKeyFile)} does not exist and SVC_ENCRYPTION_KEY is not set. ` +
          'Run the backup with the same SVC_* settings as the hub (e.g. /etc/svc-hub/hub.env).',
      );
    const dataOut = path.join(staging, dataFolder);
    // Left out: what the database copy replaces, the lock, the key unless asked for, and the credential files
    // (sealed below instead).
    const left = [
      ...notCopied,
      ...clearCredentialFiles,
      ...(options.includeKey ? [] : [encryptionKeyFile]),
    ].map((relative) => path.join(config.dataDir, relative));
    copyTree(config.dataDir, dataOut, (source) => left.includes(source));
    const sealedFiles: string[] = [];
    for (const relative of clearCredentialFiles) {
      const source = path.join(config.dataDir, relative);
      if (!fs.existsSync(source)) continue;
      const name = portable(relative);
      const target = path.join(staging, sealedFolder, relative);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, box.seal(fs.readFileSync(source, 'utf8'), sealedFileContext(name)), {
        mode: 0o600,
      });
      sealedFiles.push(name);
    }
    if (fs.existsSync(config.tlsCaKeyDir))
      copyTree(config.tlsCaKeyDir, path.join(staging, caKeyFolder), () => false);
    if (database === 'sqlite') {
      // The online backup API copies pages while the hub keeps writing, and restarts if they change under it.
      const source = new SQLite(dbFile, { readonly: true, fileMustExist: true });
      try {
        await source.backup(path.join(dataOut, sqliteFile));
      } finally {
        source.close();
      }
    } else {
      await dumpPostgres(
        config.databaseUrl ?? '',
        path.join(staging, pgDumpFile),
        options.pgDump ?? 'pg_dump',
      );
    }
    const plan = await planMigrations({
      databaseUrl: config.databaseUrl,
      dataDir: database === 'sqlite' ? dataOut : config.dataDir,
    });
    if (plan.unknown.length > 0) throw new DatabaseNewerThanHub(plan.unknown);
    const manifest: Manifest = {
      format: 'svc-hub-backup',
      format_version: formatVersion,
      hub_version: hubVersion,
      created_at: new Date().toISOString(),
      database,
      migrations: Object.keys(migrations).filter((name) => !plan.pending.includes(name)),
      key_included: options.includeKey && fs.existsSync(path.join(config.dataDir, encryptionKeyFile)),
      sealed_files: sealedFiles,
      key_check: box.seal(keyCheckText, keyCheckContext),
    };
    fs.writeFileSync(path.join(staging, manifestName), `${JSON.stringify(manifest, null, 2)}\n`, {
      mode: 0o600,
    });
    await tarCreate(target, staging);
    return {
      file: target,
      database,
      keyIncluded: manifest.key_included,
      keyLocation: config.encryptionKey
        ? 'SVC_ENCRYPTION_KEY (the environment)'
        : path.join(config.dataDir, encryptionKeyFile),
    };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

async function dumpPostgres(url: string, file: string, pgDump: string): Promise<void> {
  try {
    await run(
      pgDump,
      ['--format=custom', '--no-owner', '--no-privileges', `--file=${file}`, `--dbname=${url}`],
      {
        timeout: toolTimeoutMs,
      },
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new OperationRefused(
        `${pgDump} is not installed. Install the PostgreSQL client tools (the server's major version), or back up ` +
          'the database with your own PostgreSQL tooling (pg_dump --format=custom) beside this archive.',
      );
    throw new OperationRefused(
      `pg_dump failed: ${(error as { stderr?: string }).stderr?.trim() || String(error)}`,
    );
  }
}

function isEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

function readManifest(dir: string): Manifest {
  let manifest: Partial<Manifest>;
  try {
    manifest = JSON.parse(fs.readFileSync(path.join(dir, manifestName), 'utf8')) as Partial<Manifest>;
  } catch {
    throw new OperationRefused('this file is not an svc hub backup (no svc-backup.json in it)');
  }
  if (
    manifest.format !== 'svc-hub-backup' ||
    (manifest.format_version !== 1 && manifest.format_version !== formatVersion)
  )
    throw new OperationRefused('this file is not an svc hub backup this hub can read (format or version)');
  return manifest as Manifest;
}

const hexKey = /^[0-9a-f]{64}$/i;

export interface RestoreResult {
  database: 'sqlite' | 'postgres';
  hubVersion: string;
  createdAt: string;
  /** Where the hub key came from. */
  key: 'archive' | 'key file' | 'SVC_ENCRYPTION_KEY';
}

/**
 * Restores an archive into an empty data directory (and an empty CA key directory). Refuses a directory with
 * anything in it, an archive from a newer hub, and a restore that would leave the secrets without their key.
 */
export async function restoreBackup(
  config: BackupConfig,
  file: string,
  options: { keyFile?: string; pgRestore?: string },
): Promise<RestoreResult> {
  const source = path.resolve(file);
  if (!fs.existsSync(source)) throw new OperationRefused(`${source} does not exist`);
  const dataDir = path.resolve(config.dataDir);
  if (!isEmptyDir(dataDir))
    throw new OperationRefused(
      `the data directory ${dataDir} is not empty: restore only into an empty one (set SVC_DATA_DIR to a new directory)`,
    );
  if (!isEmptyDir(config.tlsCaKeyDir))
    throw new OperationRefused(
      `the CA key directory ${config.tlsCaKeyDir} is not empty: restore only into an empty one`,
    );
  const parent = path.dirname(dataDir);
  fs.mkdirSync(parent, { recursive: true });
  const staging = fs.mkdtempSync(path.join(parent, '.svc-restore-'));
  try {
    await tarExtract(source, staging);
    const manifest = readManifest(staging);
    const unknown = manifest.migrations.filter((name) => !(name in migrations));
    if (unknown.length > 0)
      throw new OperationRefused(
        `the backup was made by a newer hub (version ${manifest.hub_version}); restore it with that version or later`,
      );
    const dataIn = path.join(staging, dataFolder);
    const keyInArchive = fs.existsSync(path.join(dataIn, encryptionKeyFile));
    let key: RestoreResult['key'];
    if (options.keyFile) {
      const text = fs.readFileSync(options.keyFile, 'utf8').trim();
      if (!hexKey.test(text))
        throw new OperationRefused(`${options.keyFile} is not a hub key (64 hexadecimal characters)`);
      fs.writeFileSync(path.join(dataIn, encryptionKeyFile), `${text}\n`, { mode: 0o600 });
      key = 'key file';
    } else if (keyInArchive) key = 'archive';
    else if (config.encryptionKey) key = 'SVC_ENCRYPTION_KEY';
    else
      throw new OperationRefused(
        'the backup holds no hub key (it was made without --include-key): give the key you kept with ' +
          '--key-file <file>, or set SVC_ENCRYPTION_KEY. Without it the restored hub cannot read its secrets.',
      );
    unsealCredentialFiles(config, staging, manifest, key);
    if (manifest.database === 'postgres') {
      if (!config.databaseUrl)
        throw new OperationRefused(
          'the backup is of a PostgreSQL hub: set SVC_DATABASE_URL to an empty database',
        );
      const plan = await planMigrations({ databaseUrl: config.databaseUrl, dataDir });
      if (plan.pending.length !== Object.keys(migrations).length || plan.unknown.length > 0)
        throw new OperationRefused(
          'the PostgreSQL database in SVC_DATABASE_URL is not empty: restore into an empty one',
        );
      await restorePostgres(
        config.databaseUrl,
        path.join(staging, pgDumpFile),
        options.pgRestore ?? 'pg_restore',
      );
    } else if (config.databaseUrl) {
      throw new OperationRefused('the backup is of an SQLite hub: unset SVC_DATABASE_URL to restore it');
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
    fs.renameSync(dataIn, dataDir);
    fs.chmodSync(dataDir, 0o700);
    const caIn = path.join(staging, caKeyFolder);
    if (fs.existsSync(caIn)) {
      fs.rmSync(config.tlsCaKeyDir, { recursive: true, force: true });
      fs.mkdirSync(path.dirname(config.tlsCaKeyDir), { recursive: true });
      fs.renameSync(caIn, config.tlsCaKeyDir);
      fs.chmodSync(config.tlsCaKeyDir, 0o700);
    }
    return {
      database: manifest.database,
      hubVersion: manifest.hub_version,
      createdAt: manifest.created_at,
      key,
    };
  } finally {
    fs.rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * Checks the hub key against the archive and puts the sealed credential files back in the data directory being
 * restored (0600). Only the names the hub knows are accepted: the archive never chooses where a file goes.
 */
function unsealCredentialFiles(
  config: BackupConfig,
  staging: string,
  manifest: Manifest,
  key: RestoreResult['key'],
): void {
  if (manifest.key_check === undefined && (manifest.sealed_files ?? []).length === 0) return;
  const dataIn = path.join(staging, dataFolder);
  const box =
    key === 'SVC_ENCRYPTION_KEY'
      ? hubKeyBox(config, dataIn, config.encryptionKey)
      : hubKeyBox(config, dataIn, null);
  if (!box) throw new OperationRefused('no hub key to open the backup with');
  const known = new Map(clearCredentialFiles.map((f) => [portable(f), f]));
  const wrongKey = () =>
    new OperationRefused(
      `the hub key from the ${key} does not open this backup: give the key of the hub that made it ` +
        '(--key-file <file>, or SVC_ENCRYPTION_KEY)',
    );
  try {
    if (manifest.key_check !== undefined && box.open(manifest.key_check, keyCheckContext) !== keyCheckText)
      throw wrongKey();
    for (const name of manifest.sealed_files ?? []) {
      const relative = known.get(name);
      if (relative === undefined)
        throw new OperationRefused(`the backup holds a sealed file this hub does not know (${name})`);
      const sealed = fs.readFileSync(path.join(staging, sealedFolder, relative), 'utf8');
      const target = path.join(dataIn, relative);
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      fs.writeFileSync(target, box.open(sealed, sealedFileContext(name)), { mode: 0o600 });
    }
  } catch (error) {
    if (error instanceof SecretBoxError) throw wrongKey();
    throw error;
  }
}

async function restorePostgres(url: string, file: string, pgRestore: string): Promise<void> {
  try {
    await run(pgRestore, ['--no-owner', '--no-privileges', '--exit-on-error', `--dbname=${url}`, file], {
      timeout: toolTimeoutMs,
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new OperationRefused(
        `${pgRestore} is not installed. Install the PostgreSQL client tools, or restore the database yourself ` +
          `(pg_restore --no-owner --dbname=<url> ${pgDumpFile}, from the archive) before starting the hub.`,
      );
    throw new OperationRefused(
      `pg_restore failed: ${(error as { stderr?: string }).stderr?.trim() || String(error)}`,
    );
  }
}
