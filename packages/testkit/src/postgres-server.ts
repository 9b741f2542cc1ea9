/**
 * A PostgreSQL server of a test's own, for tests that stop and start it (the fault suite's "PostgreSQL
 * restarts"): Debian's server binaries, a cluster made by initdb in a temporary directory (trust auth for
 * loopback, superuser `postgres`), run in the foreground on a free 127.0.0.1 port so its pid is ours. The shared
 * server on 5432 is never touched.
 *
 * PostgreSQL refuses to run as root: when the test runs as root (CI), initdb and the server run as the
 * `postgres` user, which owns the directory.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort, spawnLocal, waitListening, type LocalProcess } from './local-process.js';

export interface OwnPostgresServer {
  /** The superuser's URL on the `postgres` database: the hub cluster harness creates its database beside it. */
  readonly url: string;
  readonly port: number;
  /** A fast shutdown (SIGINT: connections are closed, nothing committed is lost); waits until it has exited. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and directory; waits until it accepts connections. */
  start: () => Promise<void>;
  /** Stops it and removes its directory. */
  close: () => Promise<void>;
  /** SIGQUIT now, without waiting: for a process `exit` handler. */
  killNow: () => void;
  /** The end of the server's log (for diagnostics). */
  output: () => string;
}

/** Where Debian puts the server binaries (not on PATH): the newest `/usr/lib/postgresql/<n>/bin`. */
function serverBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => fs.existsSync(path.join(root, v, 'bin', 'postgres')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  const newest = versions[0];
  if (!newest)
    throw new Error(`no PostgreSQL server binaries (postgres, initdb) under ${root}/<version>/bin`);
  return path.join(root, newest, 'bin');
}

/** The uid and gid to run the server as: ours, or `postgres`'s when we are root. */
function runAs(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
  const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error('running as root and no `postgres` user to run PostgreSQL as');
  return { uid, gid };
}

/** Listening is not yet accepting ("the database system is starting up"): waits for a `select 1`. */
async function waitAccepting(url: string, server: LocalProcess, deadline: number): Promise<void> {
  let last = 'no answer yet';
  for (let attempt = 0; attempt < 1_000; attempt++) {
    if (server.ended()) throw new Error(`postgres ended:\n${server.output().slice(-3000)}`);
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
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`postgres did not accept connections (${last}):\n${server.output().slice(-3000)}`);
}

export async function startPostgresServer(
  options: { startTimeoutMs?: number } = {},
): Promise<OwnPostgresServer> {
  const startTimeoutMs = options.startTimeoutMs ?? 30_000;
  const bin = serverBinDir();
  const user = runAs();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-postgres-'));
  const dataDir = path.join(dir, 'data');
  if (user) fs.chownSync(dir, user.uid, user.gid);
  fs.chmodSync(dir, 0o700);
  const ids = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(
    path.join(bin, 'initdb'),
    ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
    { ...ids, stdio: 'pipe', timeout: 60_000, cwd: dir },
  );
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${String(port)}/postgres`;
  const args = [
    '-D',
    dataDir,
    '-p',
    String(port),
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    `unix_socket_directories=${dir}`,
    '-c',
    'fsync=off',
    '-c',
    'max_connections=200',
  ];
  let running: LocalProcess | null = null;
  let last: LocalProcess | null = null;
  const stop = async () => {
    const current = running;
    running = null;
    // SIGINT is PostgreSQL's fast shutdown; SIGQUIT (immediate) if it has not ended in 10 s.
    if (!current || current.ended()) return;
    current.child.kill('SIGINT');
    const timer = setTimeout(() => current.child.kill('SIGQUIT'), 10_000);
    await current.exited;
    clearTimeout(timer);
  };
  const start = async () => {
    if (running && !running.ended()) return;
    const started = spawnLocal(path.join(bin, 'postgres'), args, { ...ids, cwd: dir, keepOutput: 32 * 1024 });
    running = started;
    last = started;
    try {
      const deadline = Date.now() + startTimeoutMs;
      await waitListening(started, port, 'postgres', { timeoutMs: startTimeoutMs, intervalMs: 100 });
      await waitAccepting(url, started, deadline);
    } catch (error) {
      await stop();
      throw error;
    }
  };
  const killNow = () => running?.child.kill('SIGQUIT');
  process.once('exit', killNow);
  try {
    await start();
  } catch (error) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    url,
    port,
    stop,
    start,
    close: async () => {
      process.off('exit', killNow);
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
    killNow,
    output: () => last?.output() ?? '',
  };
}
