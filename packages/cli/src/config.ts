/**
 * The CLI's config file (`svc login` writes it): the hub's address, the API key, and the hub's CA when it was
 * pinned at login. It holds a key, so it is written with mode 0600 in a 0700 directory, and a file that
 * anyone but its owner may read or write is refused, as ssh refuses a readable private key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CliError, exitCodes } from './exit-codes.js';

export interface CliConfig {
  hub_url: string;
  api_key: string;
  /** The hub's CA certificate (PEM), pinned at login; absent when the system trusts the hub. */
  ca_pem?: string;
}

/** Where the config lives: `--config`, else `$XDG_CONFIG_HOME/svc/config.json`, else `~/.config/svc/…`. */
export function configPath(
  explicit: string | undefined,
  env: Readonly<Record<string, string | undefined>>,
): string {
  if (explicit) return path.resolve(explicit);
  if (env.SVC_CONFIG) return path.resolve(env.SVC_CONFIG);
  const base = env.XDG_CONFIG_HOME || path.join(env.HOME || os.homedir(), '.config');
  return path.join(base, 'svc', 'config.json');
}

/** Why a file with this mode must not hold a key, or null when only its owner can read and write it. */
export function unsafeModeProblem(mode: number): string | null {
  const loose = mode & 0o077;
  if (loose === 0) return null;
  const who = loose & 0o007 ? 'every user on this machine' : 'its group';
  return `is open to ${who} (mode ${(mode & 0o777).toString(8).padStart(4, '0')})`;
}

function isConfig(value: unknown): value is CliConfig {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.hub_url === 'string' &&
    typeof v.api_key === 'string' &&
    (v.ca_pem === undefined || typeof v.ca_pem === 'string')
  );
}

/** The config file's content, or null when there is none; CliError when it is unsafe or unreadable. */
export function readConfig(file: string): CliConfig | null {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new CliError(`cannot read ${file}: ${(error as Error).message}`, exitCodes.auth);
  }
  const problem = unsafeModeProblem(stat.mode);
  if (problem) {
    throw new CliError(
      `refusing to use ${file}: it holds an API key and ${problem}`,
      exitCodes.auth,
      `run \`chmod 600 ${file}\`, and revoke the key if someone else may have read it`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new CliError(
      `cannot read ${file}: ${(error as Error).message}`,
      exitCodes.auth,
      'run `svc login` again',
    );
  }
  if (!isConfig(parsed)) {
    throw new CliError(
      `${file} is not a svc config (hub_url and api_key expected)`,
      exitCodes.auth,
      'run `svc login` again',
    );
  }
  return parsed;
}

/** Writes the config whole (a temporary file renamed over it), mode 0600, its directory 0700. */
export function writeConfig(file: string, config: CliConfig): void {
  const dir = path.dirname(file);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const temp = `${file}.${String(process.pid)}.tmp`;
  fs.writeFileSync(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  fs.chmodSync(temp, 0o600);
  fs.renameSync(temp, file);
}

/** Removes the config file (`svc logout`); true when there was one. */
export function removeConfig(file: string): boolean {
  try {
    fs.unlinkSync(file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw error;
  }
}
