/**
 * A PostgreSQL of a test's own (Debian's /usr/lib/postgresql/<version>/bin) on a free loopback port, in a
 * temporary data directory with trust authentication, which the test may stop and start again (a restart of
 * the database under running hubs) while the shared server on 5432 is left alone.
 *
 * initdb and postgres refuse to run as root: when the test runs as root they run as the `postgres` user (the
 * data directory is made theirs). Stopping is PostgreSQL's fast shutdown (SIGINT): open sessions are ended
 * with 57P01 `admin_shutdown`, what a `systemctl restart postgresql` does to clients.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, spawnLocal, waitListening, type LocalProcess } from './local-process.js';

const debianRoot = '/usr/lib/postgresql';

export interface OwnPostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`: the superuser, trust authentication. */
  readonly url: string;
  readonly port: number;
  /** Fast shutdown (sessions ended with 57P01), SIGQUIT after 10 s; waits until it has exited. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and data; waits until it accepts connections. */
  start: () => Promise<void>;
  /** stop, then start. */
  restart: () => Promise<void>;
  /** Stops it and removes its data directory. */
  close: () => Promise<void>;
}

/** The bin directory of the newest PostgreSQL Debian installed, or null when there is none. */
export function postgresBinDir(): string | null {
  if (!fs.existsSync(debianRoot)) return null;
  const versions = fs
    .readdirSync(debianRoot)
    .filter((v) => fs.existsSync(path.join(debianRoot, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  const newest = versions[0];
  return newest === undefined ? null : path.join(debianRoot, newest, 'bin');
}

/** Who runs initdb and postgres: this user, or `postgres` when this is root (they refuse root). */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  return { uid: id('-u'), gid: id('-g') };
}

/**
 * Waits until a query succeeds: the port listens while the server still recovers and answers 57P03 "the
 * database system is starting up".
 */
async function waitAccepting(server: LocalProcess, url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (let attempt = 0; attempt < 1_000 && Date.now() < deadline; attempt++) {
    if (server.ended()) break;
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
    try {
      await client.connect();
      await client.query('select 1');
      return;
    } catch (error) {
      last = (error as Error).message;
    } finally {
      await client.end().catch(() => undefined);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`postgres did not accept queries (${last}):\n${server.output().slice(-3000)}`);
}

export async function startPostgresServer(): Promise<OwnPostgresServer> {
  const bin = postgresBinDir();
  if (!bin) throw new Error(`no PostgreSQL under ${debianRoot}`);
  const user = runAs();
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pg-'));
  const dataDir = path.join(workDir, 'data');
  fs.mkdirSync(dataDir, { mode: 0o700 });
  if (user) {
    fs.chownSync(workDir, user.uid, user.gid);
    fs.chownSync(dataDir, user.uid, user.gid);
  }
  const owned = user ? { uid: user.uid, gid: user.gid } : {};
  try {
    execFileSync(
      path.join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
      { ...owned, stdio: 'pipe', cwd: workDir },
    );
  } catch (error) {
    fs.rmSync(workDir, { recursive: true, force: true });
    throw new Error(`initdb failed: ${String((error as { stderr?: Buffer }).stderr ?? error)}`, {
      cause: error,
    });
  }
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${String(port)}/postgres`;
  // A test database: durability is not what is tested, start-up time is.
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${workDir}`,
    '-c',
    'fsync=off',
    '-c',
    'synchronous_commit=off',
    '-c',
    'full_page_writes=off',
    '-c',
    'max_connections=200',
  ];
  let running: LocalProcess | null = null;
  const stop = async () => {
    const current = running;
    running = null;
    await current?.stop('SIGINT', 10_000);
  };
  const start = async () => {
    if (running && !running.ended()) return;
    const started = spawnLocal(path.join(bin, 'postgres'), args, {
      ...owned,
      cwd: workDir,
      keepOutput: 16 * 1024,
    });
    running = started;
    try {
      await waitListening(started, port, 'postgres', { timeoutMs: 20_000 });
      await waitAccepting(started, url, 20_000);
    } catch (error) {
      await stop();
      throw error;
    }
  };
  const killNow = () => running?.child.kill('SIGKILL');
  process.once('exit', killNow);
  const close = async () => {
    process.off('exit', killNow);
    await stop();
    fs.rmSync(workDir, { recursive: true, force: true });
  };
  try {
    await start();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    url,
    port,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    close,
  };
}
