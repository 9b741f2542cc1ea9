/**
 * Crash durability: the real hub runs as its own process on a SQLite data directory, takes writes, and is
 * killed with SIGKILL while more writes are in flight. Started again on the same directory, it must still hold
 * every write it acknowledged with 201, with its audit event, and must not make a second owner.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import SQLite from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import type { Asset, AuditEvent, User } from '@svc/protocol';
import { claimOwner, freePort } from '@svc/testkit';
import { maskSecret, ownerCredentialsFile } from '../../modules/users/owner-bootstrap.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../..');
// The compiled hub, as `npm start` runs it (built by the test run's global setup).
const mainScript = path.join(repoRoot, 'apps/hub/bin/svc-hub.js');

const sequentialWrites = 80;
const concurrentWorkers = 2;
const requestTimeoutMs = 5_000;

interface RunningHub {
  child: ChildProcess;
  base: string;
  output(): string;
  exited: Promise<void>;
}

const started: ChildProcess[] = [];
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-hub-crash-'));

afterAll(() => {
  for (const child of started)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  fs.rmSync(dataDir, { recursive: true, force: true });
});

/** Waits for a promise at most `ms`, failing with what was awaited, so a hang reports itself. */
async function within<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took over ${ms} ms`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function startHub(): Promise<RunningHub> {
  const port = await freePort();
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('SVC_')) env[name] = value;
  }
  Object.assign(env, {
    SVC_DATA_DIR: dataDir,
    SVC_HTTP_PORT: String(port),
    SVC_HOST: '127.0.0.1',
    SVC_TLS_MODE: 'disabled',
    SVC_BCRYPT_COST: '4',
    // info, not warn: the first-run hint is logged at info, and the test checks what it shows.
    SVC_LOG_LEVEL: 'info',
    SVC_RATE_LIMIT_ENABLED: 'false',
  });
  const child = spawn(process.execPath, [mainScript], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  started.push(child);
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      resolve();
    });
  });
  const base = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`hub exited before answering:\n${output}`);
    }
    try {
      const res = await fetch(`${base}/api/v2/openapi.json`, { signal: AbortSignal.timeout(1_000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`hub did not answer within 30 s:\n${output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, base, output: () => output, exited };
}

function readGeneratedPassword(): string {
  const text = fs.readFileSync(path.join(dataDir, ownerCredentialsFile), 'utf8');
  const line = text.split('\n').find((l) => l.startsWith('password='));
  if (!line) throw new Error('credentials file has no password');
  return line.slice('password='.length);
}

async function getJson(
  hub: RunningHub,
  token: string,
  url: string,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${hub.base}${url}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(requestTimeoutMs),
  });
  return { status: res.status, body: await res.json() };
}

async function walk<T>(hub: RunningHub, token: string, url: string): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; page <= 20; page++) {
    const res = await getJson(hub, token, `${url}&per_page=500&page=${page}`);
    const { status } = res;
    const body = res.body as { data: T[] };
    expect(status).toBe(200);
    out.push(...body.data);
    if (body.data.length < 500) return out;
  }
  throw new Error(`too many pages at ${url}`);
}

describe('crash durability', () => {
  it('keeps every acknowledged write and its audit event across SIGKILL, and does not re-create the owner', async () => {
    // ---- first run: bootstrap, then writes, killed while more are in flight
    const first = await startHub();
    const credentialsPath = path.join(dataDir, ownerCredentialsFile);
    expect(fs.statSync(credentialsPath).mode & 0o777).toBe(0o600);
    const password = readGeneratedPassword();
    const { ownerKey: token } = await claimOwner(first.base, dataDir);
    expect(fs.existsSync(credentialsPath)).toBe(false);

    const attempted = new Set<string>();
    const committed = new Map<string, string>();
    let inFlight = 0;
    let stopped = false;
    const post = async (name: string): Promise<void> => {
      attempted.add(name);
      inFlight++;
      try {
        const res = await fetch(`${first.base}/api/v2/assets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, tags: ['crash-test'] }),
          signal: AbortSignal.timeout(requestTimeoutMs),
        });
        if (res.status === 201) committed.set(((await res.json()) as { data: Asset }).data.id, name);
      } finally {
        inFlight--;
      }
    };

    const workers = Array.from({ length: concurrentWorkers }, async (_, w) => {
      for (let i = 0; !stopped && i < 500; i++) {
        try {
          await post(`stream-${w}-${i}`);
        } catch {
          // the connection dies with the process; whether this write landed is unknown
        }
      }
    });

    for (let i = 0; i < sequentialWrites; i++) {
      const before = committed.size;
      await post(`seq-${i}`);
      expect(committed.size).toBeGreaterThan(before);
    }
    const waitUntil = Date.now() + 2_000;
    while (inFlight === 0 && Date.now() < waitUntil) await new Promise((r) => setTimeout(r, 1));
    expect(inFlight).toBeGreaterThan(0);
    first.child.kill('SIGKILL');
    stopped = true;
    await within('the killed hub to exit', 5_000, first.exited);
    await within('the writers to stop', 10_000, Promise.all(workers));
    expect(first.child.signalCode).toBe('SIGKILL');
    expect(committed.size).toBeGreaterThanOrEqual(sequentialWrites);
    expect(attempted.size).toBeLessThan(sequentialWrites + concurrentWorkers * 500);

    // ---- second run on the same data directory
    const second = await startHub();
    try {
      const assets = await walk<Asset>(second, token, '/api/v2/assets?');
      const present = new Map(assets.map((a) => [a.id, a.name]));
      for (const [id, name] of committed) expect(present.get(id), `${name} (${id})`).toBe(name);
      for (const name of present.values()) expect(attempted.has(name), name).toBe(true);

      const created = await walk<AuditEvent>(second, token, '/api/v2/audit/events?action=asset.created');
      const auditedIds = created.map((e) => e.target_id);
      expect(new Set(auditedIds).size).toBe(auditedIds.length);
      for (const id of committed.keys()) expect(auditedIds, id).toContain(id);
      // Asset and audit event commit together: no asset without its event, no event without its asset.
      expect([...auditedIds].sort()).toEqual([...present.keys()].sort());

      // The second run makes no new first-run file: the owner is settled.
      expect(fs.existsSync(credentialsPath)).toBe(false);
      const whoami = await getJson(second, token, '/api/v2/whoami');
      expect(whoami.status).toBe(200);
      expect(whoami.body).toMatchObject({ data: { role: 'owner' } });
      const users = await walk<User>(second, token, '/api/auth/users?');
      expect(users.filter((u) => u.role === 'owner')).toHaveLength(1);
      const ownerKeys = (await walk<{ role: string }>(second, token, '/api/v2/keys?')).filter(
        (k) => k.role === 'owner',
      );
      expect(ownerKeys).toHaveLength(1);

      // ---- spec 5.5.4: the log shows masked hints only, and the second run makes no owner at all
      const log = first.output() + second.output();
      expect(first.output()).toContain(maskSecret(password));
      expect(second.output()).not.toContain('owner account created');
      expect(log).not.toContain(password);
      expect(log).not.toContain(token);
      expect(log).not.toContain(password.slice(2, 12));
      expect(log).not.toContain(token.slice(-20));
    } finally {
      second.child.kill('SIGTERM');
      await within('the hub to stop on SIGTERM', 10_000, second.exited).catch((error: unknown) => {
        second.child.kill('SIGKILL');
        const tail = second.output().split('\n').slice(-8).join('\n');
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}; its last output:\n${tail}`,
        );
      });
    }

    const file = new SQLite(path.join(dataDir, 'hub.sqlite'), { readonly: true });
    try {
      expect(file.pragma('integrity_check', { simple: true })).toBe('ok');
    } finally {
      file.close();
    }
  }, 90_000);
});
