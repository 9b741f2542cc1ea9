/**
 * The data directory holds the database, the hub key and sealed private keys: only the hub's user may read
 * it. A fresh one is made 0700; an existing one (older hubs made files 0644 under the default umask, and an
 * operator may have loosened it) is tightened at every start: directories 0700, files 0600. The public TLS
 * folder (the CA certificate, meant to be shared) keeps its modes.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from './logger.js';
import { tlsPublicDirName } from './tls/tls-files.js';

/** The owner's first-run password, in clear until the owner sets a new one (modules/users/owner-bootstrap.ts). */
export const ownerCredentialsFile = 'owner-credentials.txt';

/** The local agent's settings (local-agent.ts), with its agent credential in clear: it signs in as this host. */
export const localAgentSettingsFile = path.join('local-agent', 'settings.json');

/**
 * The files of the data directory that hold a live credential in clear. A backup carries them sealed with the
 * hub key (ops/backup.ts), so that a stolen archive opens nothing; every other secret there is sealed already.
 */
export const clearCredentialFiles: readonly string[] = [ownerCredentialsFile, localAgentSettingsFile];

/** The hub's own process umask (main.ts): every file and directory it makes is private to its user. */
export const hubUmask = 0o077;

const privateDirMode = 0o700;
const privateFileMode = 0o600;

/** Bounds the walk: a data directory holds a handful of files; a huge tree is not ours to fix here. */
const maxEntries = 10_000;

export interface DataDirReport {
  /** Paths whose modes were loosened and are now private. */
  tightened: string[];
  /** What could not be tightened (for a warning in the log). */
  problems: string[];
}

/**
 * Makes `dir` if missing, then tightens it and everything under it, except the folders in `keepModes`
 * (relative to `dir`). Symbolic links are neither followed nor changed.
 */
export function secureDataDir(dir: string, keepModes: readonly string[] = []): DataDirReport {
  const report: DataDirReport = { tightened: [], problems: [] };
  try {
    fs.mkdirSync(dir, { recursive: true, mode: privateDirMode });
  } catch (error) {
    report.problems.push(`${dir}: ${(error as Error).message}`);
    return report;
  }
  const skipped = new Set(keepModes.map((p) => path.join(dir, p)));
  const pending = [dir];
  let seen = 0;
  while (pending.length > 0) {
    const current = pending.pop() as string;
    tighten(current, privateDirMode, report);
    let names: fs.Dirent[];
    try {
      names = fs.readdirSync(current, { withFileTypes: true });
    } catch (error) {
      report.problems.push(`${current}: ${(error as Error).message}`);
      continue;
    }
    for (const entry of names) {
      if (++seen > maxEntries) {
        report.problems.push(`${dir}: more than ${maxEntries} entries; the rest were not checked`);
        return report;
      }
      const full = path.join(current, entry.name);
      if (skipped.has(full)) continue;
      if (entry.isDirectory()) pending.push(full);
      else if (entry.isFile()) tighten(full, privateFileMode, report);
    }
  }
  return report;
}

function tighten(file: string, mode: number, report: DataDirReport): void {
  try {
    const current = fs.lstatSync(file).mode & 0o777;
    if ((current & ~mode) === 0) return;
    fs.chmodSync(file, current & mode);
    report.tightened.push(file);
  } catch (error) {
    report.problems.push(`${file}: ${(error as Error).message}`);
  }
}

/** Makes or tightens the hub's data directory before anything is read or written there; logs what it did. */
export function prepareDataDir(dir: string, logger: Logger): void {
  const report = secureDataDir(dir, [tlsPublicDirName]);
  if (report.tightened.length > 0)
    logger.warn(
      { paths: report.tightened.slice(0, 20), count: report.tightened.length },
      'tightened the data directory: directories 0700, files 0600',
    );
  if (report.problems.length > 0)
    logger.warn(
      { problems: report.problems.slice(0, 20) },
      "cannot make the data directory private (directories 0700, files 0600): other local users may read the hub's secrets",
    );
}
