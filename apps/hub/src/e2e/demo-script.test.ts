/**
 * `npm run demo` (scripts/demo.ts) as a person runs it: whatever ends it — its hub not ready in time, Ctrl-C
 * at a terminal (SIGINT to the whole process group), a SIGTERM to the script alone while its hub starts — the
 * hub it started is gone and its temporary folder (which holds the sealed CA key) is removed. Each run gets a
 * TMPDIR of its own, so the folder and every process the demo started can be found: the processes by that
 * TMPDIR in their environment.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { tlsRequest } from '@svc/testkit';
import { freePort, sleep, waitFor } from './support.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const tsxCli = path.join(repoRoot, 'node_modules/tsx/dist/cli.mjs');
const demoScript = path.join(repoRoot, 'scripts/demo.ts');

let work: string;
const running: ChildProcess[] = [];

interface Demo {
  child: ChildProcess;
  tmp: string;
  port: number;
  output: () => string;
  exited: Promise<number | null>;
}

/** Two free ports in a row: the demo's hub takes `port` for HTTPS and `port + 1` for HTTP. */
async function portPair(): Promise<number> {
  for (let tries = 0; tries < 50; tries++) {
    const port = await freePort();
    if (port < 65_535 && !(await listening(port + 1))) return port;
  }
  throw new Error('no two free ports in a row');
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** `npm run demo`'s command (tsx scripts/demo.ts), in a process group of its own like a terminal's job. */
async function startDemo(name: string, env: Record<string, string> = {}): Promise<Demo> {
  const tmp = path.join(work, name);
  fs.mkdirSync(tmp);
  const port = await portPair();
  const child = spawn(process.execPath, [tsxCli, demoScript], {
    cwd: repoRoot,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, TMPDIR: tmp, SVC_DEMO_PORT: String(port), ...env },
  });
  running.push(child);
  let text = '';
  const keep = (chunk: Buffer) => {
    text += chunk.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      resolve(code);
    });
  });
  return { child, tmp, port, output: () => text, exited };
}

/** Processes (other than this one) whose environment names `tmp` as TMPDIR: the demo's and its hub's. */
function processesOf(tmp: string): number[] {
  const marker = Buffer.from(`TMPDIR=${tmp}\0`);
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (fs.readFileSync(`/proc/${entry}/environ`).includes(marker)) found.push(Number(entry));
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

/**
 * Of those, the hub: the process running apps/hub/bin/svc-hub.js. Its guard (scripts/demo-guard.js) names the
 * launcher too, as an argument: only the script node runs counts.
 */
function hubsOf(tmp: string): number[] {
  return processesOf(tmp).filter((pid) => {
    try {
      const argv = fs.readFileSync(`/proc/${String(pid)}/cmdline`, 'utf8').split('\0');
      return argv[1]?.endsWith('svc-hub.js') === true;
    } catch {
      return false;
    }
  });
}

function demoFolders(tmp: string): string[] {
  return fs.readdirSync(tmp).filter((name) => name.startsWith('svc-demo-'));
}

/** The demo exited, its hub and every other process it started are gone, and so is its folder. */
async function expectAllGone(demo: Demo): Promise<void> {
  // The hub may take its 5 s of graceful shutdown (and its guard 10 s before SIGKILL): no longer than that.
  await waitFor(
    'no process of the demo left',
    () => (processesOf(demo.tmp).length === 0 ? true : undefined),
    {
      timeoutMs: 5_000,
    },
  ).catch(() => undefined);
  expect(processesOf(demo.tmp), demo.output()).toEqual([]);
  expect(demoFolders(demo.tmp), demo.output()).toEqual([]);
  expect(await listening(demo.port)).toBe(false);
}

async function within<T>(promise: Promise<T>, ms: number, what: string, demo: Demo): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(new Error(`${what} took over ${String(ms)} ms:\n${demo.output()}`));
    }, ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

beforeAll(() => {
  work = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-e2e-demo-'));
});

afterEach(() => {
  // A failed test must not leave a demo or its hub behind: kill whatever is left, by pid.
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.pid !== undefined) {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
  for (const name of fs.readdirSync(work)) {
    for (const pid of processesOf(path.join(work, name))) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  }
});

afterAll(() => {
  fs.rmSync(work, { recursive: true, force: true });
});

describe('npm run demo stops what it started', () => {
  it('when its hub is not ready in time: says so, exits 1, and leaves no hub and no folder', async () => {
    // No hub becomes ready in a fifth of a second (a first start makes its CA and hashes the owner's password).
    const demo = await startDemo('not-ready', { SVC_DEMO_READY_TIMEOUT_S: '0.2' });
    const code = await within(demo.exited, 150_000, 'the demo', demo);
    expect(code, demo.output()).toBe(1);
    expect(demo.output()).toMatch(/the hub was not ready after 0\.2 s/);
    expect(demo.output()).toMatch(/SVC_DEMO_READY_TIMEOUT_S/);
    await expectAllGone(demo);
    // Nothing starts listening later either: the hub was stopped, not left to finish its start.
    await sleep(3_000);
    expect(await listening(demo.port)).toBe(false);
  }, 180_000);

  it('on Ctrl-C at a terminal (SIGINT to its process group) once it is up', async () => {
    const demo = await startDemo('ctrl-c');
    await within(
      waitFor(
        'the demo to be up',
        () => (demo.output().includes('Ctrl-C stops everything') ? true : undefined),
        {
          timeoutMs: 240_000,
          intervalMs: 250,
        },
      ),
      245_000,
      'the demo start',
      demo,
    );
    const ready = await tlsRequest(`https://127.0.0.1:${String(demo.port)}/readyz`, { insecure: true });
    expect(ready.status).toBe(200);
    expect(demoFolders(demo.tmp)).toHaveLength(1);
    process.kill(-demo.child.pid!, 'SIGINT');
    const code = await within(demo.exited, 30_000, 'stopping the demo', demo);
    expect(code, demo.output()).not.toBe(0);
    await expectAllGone(demo);
  }, 300_000);

  it('on SIGTERM to the script alone while its hub is starting', async () => {
    const demo = await startDemo('term-while-starting');
    // The hub is a child with the same TMPDIR: wait until it exists, then stop the demo before it is ready. A
    // demo that exits first fails the test at once, with what it printed.
    const exitedFirst = demo.exited.then((code) => {
      throw new Error(`the demo exited (${String(code)}) before its hub started:\n${demo.output()}`);
    });
    await within(
      Promise.race([
        waitFor('the hub process', () => (hubsOf(demo.tmp).length === 1 ? true : undefined), {
          timeoutMs: 150_000,
          intervalMs: 20,
        }),
        exitedFirst,
      ]),
      155_000,
      'the hub start',
      demo,
    ).catch((error: unknown) => {
      throw new Error(`${error instanceof Error ? error.message : String(error)}\n${demo.output()}`);
    });
    exitedFirst.catch(() => undefined);
    expect(demoFolders(demo.tmp)).toHaveLength(1);
    demo.child.kill('SIGTERM');
    const code = await within(demo.exited, 30_000, 'stopping the demo', demo);
    expect(code, demo.output()).not.toBe(0);
    await expectAllGone(demo);
  }, 200_000);
});
