/**
 * The attacker's view of the hub's own host: a caller who may use the local agent's file operations tries
 * every way to the hub's data directory and to /proc of the hub. Every attempt is refused `forbidden_path`
 * and changes nothing; what is not protected keeps working.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFilesHandlers } from './files.js';
import { createLogsHandlers } from './logs.js';
import { createAgentGuard, createPathGuard, resolveNearest, type PathGuard } from './protected-paths.js';

let root: string;
let data: string;
let guard: PathGuard;
let files: ReturnType<typeof createFilesHandlers>;
/** Stands in for the hub: a process with a secret in its environment and more than one thread. */
let hub: ChildProcess;
let hubPid: number;

const forbidden = { code: 'forbidden_path' };
const b64 = (text: string) => Buffer.from(text).toString('base64');

beforeAll(async () => {
  hub = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    env: { SVC_ENCRYPTION_KEY: 'hub-secret' },
    stdio: 'ignore',
  });
  hubPid = hub.pid ?? 0;
  // Node starts its worker threads at once; wait (bounded) until they show.
  for (let i = 0; i < 100; i++) {
    const tasks = await readdir(`/proc/${hubPid}/task`).catch(() => []);
    if (tasks.length > 1) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});
afterAll(() => {
  hub.kill('SIGKILL');
});

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-protected-'));
  data = path.join(root, 'var', 'hub');
  await mkdir(data, { recursive: true });
  await writeFile(path.join(data, 'owner-credentials.txt'), 'owner token: svo_secret');
  await writeFile(path.join(data, 'encryption.key'), 'key');
  await mkdir(path.join(root, 'tmp'));
  await writeFile(path.join(root, 'tmp', 'mine.txt'), 'mine');
  guard = createPathGuard({ paths: [data], pids: [hubPid, process.pid] });
  files = createFilesHandlers({ guard });
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const at = (...parts: string[]) => path.join(root, ...parts);
const secret = () => path.join(data, 'owner-credentials.txt');

describe("the hub's data directory through the local agent", () => {
  it('refuses to read a protected file, directly or through links', async () => {
    await symlink(secret(), at('tmp', 'file-link'));
    await symlink(data, at('tmp', 'dir-link'));
    await symlink(root, at('alias'));
    for (const file of [
      secret(),
      at('tmp', 'file-link'),
      at('tmp', 'dir-link', 'owner-credentials.txt'),
      at('alias', 'var', 'hub', 'encryption.key'),
    ]) {
      await expect(files['files.read']({ path: file, max_bytes: 1024 }), file).rejects.toMatchObject(
        forbidden,
      );
    }
    await expect(files['files.read']({ path: secret(), max_bytes: 1024 })).rejects.toThrow(
      "this path holds the hub's own secrets and cannot be used through an agent",
    );
  });

  it('lists the directory that holds the data directory (names only), but not inside it', async () => {
    const listed = await files['files.list']({ path: at('var') });
    expect(listed.entries.map((e) => e.name)).toEqual(['hub']);
    await expect(files['files.list']({ path: data })).rejects.toMatchObject(forbidden);
    await symlink(data, at('tmp', 'dir-link'));
    await expect(files['files.list']({ path: at('tmp', 'dir-link') })).rejects.toMatchObject(forbidden);
  });

  it('refuses to write or make directories inside it, also through a dangling link, and creates nothing', async () => {
    await expect(
      files['files.write']({ path: path.join(data, 'new'), data_base64: b64('x'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.write']({ path: secret(), data_base64: b64('x'), overwrite: true }),
    ).rejects.toMatchObject(forbidden);
    await symlink(path.join(data, 'planted'), at('tmp', 'dangling'));
    await expect(
      files['files.write']({ path: at('tmp', 'dangling'), data_base64: b64('x'), overwrite: true }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.mkdir']({ path: path.join(data, 'sub', 'deeper'), recursive: true }),
    ).rejects.toMatchObject(forbidden);
    expect((await readdir(data)).sort()).toEqual(['encryption.key', 'owner-credentials.txt']);
    expect(await readFile(secret(), 'utf8')).toBe('owner token: svo_secret');
  });

  it('refuses to copy, move or delete a protected path or a tree that holds one', async () => {
    await expect(
      files['files.copy']({ from: secret(), to: at('tmp', 'stolen'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.copy']({ from: at('var'), to: at('tmp', 'stolen-tree'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.copy']({ from: at('tmp', 'mine.txt'), to: path.join(data, 'planted'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.rename']({ from: at('var'), to: at('tmp', 'moved'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.rename']({ from: secret(), to: at('tmp', 'moved'), overwrite: false }),
    ).rejects.toMatchObject(forbidden);
    await expect(
      files['files.rename']({ from: at('tmp', 'mine.txt'), to: secret(), overwrite: true }),
    ).rejects.toMatchObject(forbidden);
    await expect(files['files.delete']({ path: secret(), recursive: false })).rejects.toMatchObject(
      forbidden,
    );
    await expect(files['files.delete']({ path: at('var'), recursive: true })).rejects.toMatchObject(
      forbidden,
    );
    expect(existsSync(at('tmp', 'stolen'))).toBe(false);
    expect(existsSync(at('tmp', 'stolen-tree'))).toBe(false);
    expect(existsSync(at('tmp', 'moved'))).toBe(false);
    expect(await readFile(secret(), 'utf8')).toBe('owner token: svo_secret');
    expect(await readFile(at('tmp', 'mine.txt'), 'utf8')).toBe('mine');
  });

  it('keeps working on everything else', async () => {
    await files['files.write']({ path: at('tmp', 'a.txt'), data_base64: b64('hello'), overwrite: false });
    await files['files.copy']({ from: at('tmp', 'a.txt'), to: at('tmp', 'b.txt'), overwrite: false });
    await files['files.rename']({ from: at('tmp', 'b.txt'), to: at('tmp', 'c.txt'), overwrite: false });
    const read = await files['files.read']({ path: at('tmp', 'c.txt'), max_bytes: 100 });
    expect(Buffer.from(read.data_base64, 'base64').toString()).toBe('hello');
    await files['files.delete']({ path: at('tmp', 'c.txt'), recursive: false });
    await files['files.mkdir']({ path: at('tmp', 'x', 'y'), recursive: true });
    expect((await readdir(at('tmp'))).sort()).toEqual(['a.txt', 'mine.txt', 'x']);
  });
});

describe('/proc of the hub and of the agent', () => {
  it("refuses the hub's environment, directly, through a thread id and through its links", async () => {
    const tasks = (await readdir(`/proc/${hubPid}/task`)).map(Number).filter((tid) => tid !== hubPid);
    expect(tasks.length).toBeGreaterThan(0);
    const thread = tasks[0] ?? 0;
    for (const file of [
      `/proc/${hubPid}/environ`,
      `/proc/${hubPid}/cmdline`,
      `/proc/${hubPid}/task/${hubPid}/environ`,
      `/proc/${thread}/environ`, // a thread is reachable as /proc/<tid>, though not listed
    ]) {
      await expect(files['files.read']({ path: file, max_bytes: 65536 }), file).rejects.toMatchObject(
        forbidden,
      );
    }
    await expect(files['files.list']({ path: `/proc/${hubPid}/fd` })).rejects.toMatchObject(forbidden);
    await expect(files['files.list']({ path: `/proc/${thread}` })).rejects.toMatchObject(forbidden);
  });

  it('refuses /proc/self and /proc/thread-self: they are the agent', async () => {
    for (const file of ['/proc/self/environ', '/proc/thread-self/environ', `/proc/${process.pid}/environ`]) {
      await expect(files['files.read']({ path: file, max_bytes: 65536 }), file).rejects.toMatchObject(
        forbidden,
      );
    }
  });

  it("refuses the data directory reached through another process's root or cwd link", async () => {
    // An unrelated process: started through a shell that exits, so it is no descendant of a protected one.
    const pid = Number(
      execFileSync('sh', ['-c', 'sleep 30 >/dev/null 2>&1 & echo $!'], {
        cwd: data,
        encoding: 'utf8',
      }).trim(),
    );
    try {
      await expect(
        files['files.read']({ path: `/proc/${pid}/cwd/owner-credentials.txt`, max_bytes: 1024 }),
      ).rejects.toMatchObject(forbidden);
      await expect(
        files['files.read']({ path: `/proc/${pid}/root${secret()}`, max_bytes: 1024 }),
      ).rejects.toMatchObject(forbidden);
      // The rest of /proc of an unprotected process stays readable.
      const cmdline = await files['files.read']({ path: `/proc/${pid}/cmdline`, max_bytes: 1024 });
      expect(Buffer.from(cmdline.data_base64, 'base64').toString()).toBe('sleep\u000030\u0000');
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });

  it('refuses the environment of a descendant of a protected process: a child inherits it', async () => {
    const child = spawn('sleep', ['30'], { stdio: 'ignore' });
    try {
      const pid = child.pid ?? 0;
      await expect(
        files['files.read']({ path: `/proc/${pid}/environ`, max_bytes: 65536 }),
      ).rejects.toMatchObject(forbidden);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('lists /proc itself', async () => {
    const listed = await files['files.list']({ path: '/proc' });
    expect(listed.entries.some((e) => e.name === String(hubPid))).toBe(true);
  });
});

describe('the logs handler', () => {
  it('never serves a protected file, even one linked from under the log root', async () => {
    const logRoot = at('log');
    await mkdir(logRoot);
    await symlink(secret(), path.join(logRoot, 'app.log'));
    const protectedLog = path.join(logRoot, 'hub-secrets.log');
    await writeFile(protectedLog, 'secret line\n');
    const logs = createLogsHandlers({
      logRoot,
      isJournalAvailable: () => false,
      guard: createPathGuard({ paths: [data, protectedLog], pids: [] }),
    });
    // The link resolves outside the log root: refused before the guard is even asked.
    await expect(
      logs['system.logs']({ source: 'file', path: path.join(logRoot, 'app.log') }),
    ).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(logs['system.logs']({ source: 'file', path: protectedLog })).rejects.toMatchObject(
      forbidden,
    );
  });
});

describe("the agent's own guard", () => {
  it('always protects its settings file (the credential) and its own process, besides what it was told', async () => {
    const settingsFile = at('etc', 'settings.json');
    await mkdir(at('etc'));
    await writeFile(settingsFile, '{"credential":"sva_secret"}');
    const own = createFilesHandlers({
      guard: createAgentGuard({ protectedPaths: [data], protectedPids: [hubPid] }, settingsFile),
    });
    for (const file of [settingsFile, secret(), `/proc/${process.pid}/environ`, `/proc/${hubPid}/environ`]) {
      await expect(own['files.read']({ path: file, max_bytes: 65536 }), file).rejects.toMatchObject(
        forbidden,
      );
    }
  });
});

describe('resolving paths that do not exist yet', () => {
  it('resolves the nearest existing parent and follows dangling links', async () => {
    await symlink(path.join(data, 'later', 'x'), at('tmp', 'dangling'));
    expect(await resolveNearest(at('tmp', 'no', 'such', 'file'))).toBe(
      path.join(await resolveNearest(at('tmp')), 'no', 'such', 'file'),
    );
    expect(await resolveNearest(at('tmp', 'dangling'))).toBe(
      path.join(await resolveNearest(data), 'later', 'x'),
    );
  });

  it('refuses a loop of links rather than follow it forever', async () => {
    await symlink(at('tmp', 'b'), at('tmp', 'a'));
    await symlink(at('tmp', 'a'), at('tmp', 'b'));
    await expect(files['files.read']({ path: at('tmp', 'a'), max_bytes: 10 })).rejects.toMatchObject({
      code: 'invalid_path',
    });
  });
});
