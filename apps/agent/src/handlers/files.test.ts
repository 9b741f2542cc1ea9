import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, constants, existsSync, openSync } from 'node:fs';
import { createServer } from 'node:net';
import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
  chmod,
} from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentLimits } from '@svc/protocol';
import { checkPath, createFilesHandlers } from './files.js';

const files = createFilesHandlers();
let root: string;

beforeEach(async () => {
  root = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-files-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const at = (...parts: string[]) => path.join(root, ...parts);

describe('paths', () => {
  it.each([
    ['relative', 'etc/passwd'],
    ['traversal', '/tmp/../etc/passwd'],
    ['dot segment', '/tmp/./x'],
    ['double slash', '//etc/passwd'],
    ['trailing slash', '/tmp/'],
    ['NUL byte', '/tmp/a\0b'],
    ['empty', ''],
  ])('refuses a %s path', (_name, value) => {
    expect(() => checkPath(value)).toThrow(expect.objectContaining({ code: 'invalid_path' }) as Error);
  });

  it('refuses traversal on every operation and changes nothing', async () => {
    const outside = `${root}/../${path.basename(root)}-escaped`;
    await expect(
      files['files.write']({ path: outside, data_base64: '', overwrite: false }),
    ).rejects.toMatchObject({ code: 'invalid_path' });
    await expect(files['files.mkdir']({ path: outside, recursive: true })).rejects.toMatchObject({
      code: 'invalid_path',
    });
    await expect(files['files.read']({ path: `${root}/../etc`, max_bytes: 10 })).rejects.toMatchObject({
      code: 'invalid_path',
    });
    await expect(files['files.delete']({ path: `${root}/..`, recursive: true })).rejects.toMatchObject({
      code: 'invalid_path',
    });
    await expect(files['files.rename']({ from: at('a'), to: 'b', overwrite: false })).rejects.toMatchObject({
      code: 'invalid_path',
    });
    await expect(files['files.list']({ path: `${root}\0` })).rejects.toMatchObject({ code: 'invalid_path' });
    expect(await readdir(path.dirname(root))).not.toContain(`${path.basename(root)}-escaped`);
  });

  it('refuses to delete /', async () => {
    await expect(files['files.delete']({ path: '/', recursive: true })).rejects.toMatchObject({
      code: 'invalid_path',
    });
  });
});

describe('read and write', () => {
  it('round-trips binary data byte for byte', async () => {
    const bytes = Buffer.concat([randomBytes(70_000), Buffer.from([0, 255, 0xc3, 0x28, 10, 13])]);
    const written = await files['files.write']({
      path: at('blob.bin'),
      data_base64: bytes.toString('base64'),
      overwrite: false,
    });
    expect(written).toEqual({ path: at('blob.bin'), size: bytes.length });
    expect((await readFile(at('blob.bin'))).equals(bytes)).toBe(true);
    const read = await files['files.read']({ path: at('blob.bin'), max_bytes: agentLimits.fileBytes });
    expect(read.size).toBe(bytes.length);
    expect(Buffer.from(read.data_base64, 'base64').equals(bytes)).toBe(true);
  });

  it('refuses to overwrite unless asked, then replaces and keeps the mode', async () => {
    await writeFile(at('config'), 'old');
    await chmod(at('config'), 0o640);
    await expect(
      files['files.write']({
        path: at('config'),
        data_base64: Buffer.from('new').toString('base64'),
        overwrite: false,
      }),
    ).rejects.toMatchObject({ code: 'exists' });
    expect(await readFile(at('config'), 'utf8')).toBe('old');
    await files['files.write']({
      path: at('config'),
      data_base64: Buffer.from('new').toString('base64'),
      overwrite: true,
    });
    expect(await readFile(at('config'), 'utf8')).toBe('new');
    expect((await stat(at('config'))).mode & 0o777).toBe(0o640);
    expect(await readdir(root)).toEqual(['config']); // no temporary file left
  });

  it('refuses a read over max_bytes (too_large) before reading', async () => {
    await writeFile(at('big'), Buffer.alloc(2048, 1));
    await expect(files['files.read']({ path: at('big'), max_bytes: 2047 })).rejects.toMatchObject({
      code: 'too_large',
    });
    await expect(files['files.read']({ path: at('big'), max_bytes: 2048 })).resolves.toMatchObject({
      size: 2048,
    });
  });

  it('enforces max_bytes on files that report size 0 (procfs)', async () => {
    const status = await files['files.read']({ path: '/proc/self/status', max_bytes: 100_000 });
    expect(Buffer.from(status.data_base64, 'base64').toString()).toContain('Pid:');
    await expect(files['files.read']({ path: '/proc/self/status', max_bytes: 10 })).rejects.toMatchObject({
      code: 'too_large',
    });
  });

  it('refuses invalid base64 and a missing parent directory', async () => {
    await expect(
      files['files.write']({ path: at('x'), data_base64: 'not base64!', overwrite: false }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      files['files.write']({ path: at('no', 'such', 'x'), data_base64: '', overwrite: false }),
    ).rejects.toMatchObject({ code: 'not_found' });
    expect(await readdir(root)).toEqual([]);
  });

  it('does not write over a directory, and says what a missing file is', async () => {
    await mkdir(at('dir'));
    await expect(
      files['files.write']({ path: at('dir'), data_base64: '', overwrite: true }),
    ).rejects.toMatchObject({ code: 'is_directory' });
    await expect(files['files.read']({ path: at('dir'), max_bytes: 10 })).rejects.toMatchObject({
      code: 'is_directory',
    });
    await expect(files['files.read']({ path: at('missing'), max_bytes: 10 })).rejects.toMatchObject({
      code: 'not_found',
    });
  });
});

describe('list, mkdir, rename, copy', () => {
  it('lists entries with their type, size and mode, links not followed', async () => {
    await writeFile(at('b.txt'), 'hello');
    await mkdir(at('a-dir'));
    await symlink('/etc', at('c-link'));
    const listed = await files['files.list']({ path: root });
    expect(listed.truncated).toBe(false);
    expect(listed.entries.map((e) => [e.name, e.type, e.size])).toEqual([
      ['a-dir', 'directory', 0],
      ['b.txt', 'file', 5],
      ['c-link', 'symlink', 0],
    ]);
    expect(listed.entries[1]?.mode).toMatch(/^0[0-7]{3}$/);
    await expect(files['files.list']({ path: at('b.txt') })).rejects.toMatchObject({ code: 'not_directory' });
  });

  it('makes directories, recursively only when asked', async () => {
    await expect(files['files.mkdir']({ path: at('x', 'y'), recursive: false })).rejects.toMatchObject({
      code: 'not_found',
    });
    await files['files.mkdir']({ path: at('x', 'y'), recursive: true });
    expect((await stat(at('x', 'y'))).isDirectory()).toBe(true);
    await expect(files['files.mkdir']({ path: at('x'), recursive: false })).rejects.toMatchObject({
      code: 'exists',
    });
    await expect(files['files.mkdir']({ path: at('x'), recursive: true })).resolves.toEqual({
      path: at('x'),
    });
  });

  it('renames, refusing to replace unless asked', async () => {
    await writeFile(at('one'), '1');
    await writeFile(at('two'), '2');
    await expect(
      files['files.rename']({ from: at('one'), to: at('two'), overwrite: false }),
    ).rejects.toMatchObject({ code: 'exists' });
    expect(await readFile(at('two'), 'utf8')).toBe('2');
    await files['files.rename']({ from: at('one'), to: at('two'), overwrite: true });
    expect(await readdir(root)).toEqual(['two']);
    expect(await readFile(at('two'), 'utf8')).toBe('1');
  });

  it('copies files and trees, refusing to replace unless asked and to copy into itself', async () => {
    await mkdir(at('src', 'deep'), { recursive: true });
    await writeFile(at('src', 'deep', 'f'), 'data');
    await files['files.copy']({ from: at('src'), to: at('dst'), overwrite: false });
    expect(await readFile(at('dst', 'deep', 'f'), 'utf8')).toBe('data');
    await expect(
      files['files.copy']({ from: at('src'), to: at('dst'), overwrite: false }),
    ).rejects.toMatchObject({ code: 'exists' });
    await expect(
      files['files.copy']({ from: at('src'), to: at('src', 'deep', 'again'), overwrite: false }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await writeFile(at('file'), 'x');
    await expect(
      files['files.copy']({ from: at('file'), to: at('src', 'deep', 'f'), overwrite: false }),
    ).rejects.toMatchObject({ code: 'exists' });
    await files['files.copy']({ from: at('file'), to: at('src', 'deep', 'f'), overwrite: true });
    expect(await readFile(at('src', 'deep', 'f'), 'utf8')).toBe('x');
  });
});

describe('delete', () => {
  it('deletes a non-empty directory only when recursive is asked', async () => {
    await mkdir(at('tree', 'sub'), { recursive: true });
    await writeFile(at('tree', 'sub', 'f'), 'x');
    await expect(files['files.delete']({ path: at('tree'), recursive: false })).rejects.toMatchObject({
      code: 'is_directory',
    });
    expect(await readFile(at('tree', 'sub', 'f'), 'utf8')).toBe('x');
    await files['files.delete']({ path: at('tree'), recursive: true });
    expect(await readdir(root)).toEqual([]);
  });

  it('deletes an empty directory and a file without recursive', async () => {
    await mkdir(at('empty'));
    await writeFile(at('f'), 'x');
    await files['files.delete']({ path: at('empty'), recursive: false });
    await files['files.delete']({ path: at('f'), recursive: false });
    expect(await readdir(root)).toEqual([]);
    await expect(files['files.delete']({ path: at('f'), recursive: false })).rejects.toMatchObject({
      code: 'not_found',
    });
  });

  it('removes a symlink itself, never what it points at, even recursively', async () => {
    const target = await mkdtemp(path.join(os.tmpdir(), 'svc-agent-target-'));
    try {
      await writeFile(path.join(target, 'precious'), 'keep me');
      await symlink(target, at('link'));
      await files['files.delete']({ path: at('link'), recursive: true });
      await expect(lstat(at('link'))).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readFile(path.join(target, 'precious'), 'utf8')).toBe('keep me');

      // a link inside a tree being deleted is unlinked, not followed
      await mkdir(at('tree'));
      await symlink(target, at('tree', 'inner-link'));
      await files['files.delete']({ path: at('tree'), recursive: true });
      expect(await readFile(path.join(target, 'precious'), 'utf8')).toBe('keep me');
    } finally {
      await rm(target, { recursive: true, force: true });
    }
  });
});

/**
 * Opening a FIFO releases a writer blocked on it; opening /dev/watchdog reboots the host. While a handler
 * runs, this probe keeps trying to open the FIFO for writing without blocking: that succeeds only while
 * someone holds it open for reading, so a count above zero means the handler opened it.
 */
async function opensOfFifoDuring(fifo: string, work: () => Promise<unknown>): Promise<number> {
  let opens = 0;
  let done = false;
  const probe = () => {
    try {
      closeSync(openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK));
      opens += 1;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENXIO') throw error;
    }
    if (!done) setImmediate(probe);
  };
  setImmediate(probe);
  try {
    await work().catch(() => undefined);
  } finally {
    done = true;
  }
  probe();
  return opens;
}

describe('special files are refused without being opened', () => {
  it('refuses to read a FIFO, and never opens it', async () => {
    const fifo = at('pipe');
    execFileSync('mkfifo', [fifo]);
    let refusal: unknown;
    const opens = await opensOfFifoDuring(fifo, async () => {
      refusal = await files['files.read']({ path: fifo, max_bytes: 1024 }).catch((error: unknown) => error);
    });
    expect(opens).toBe(0);
    expect(refusal).toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('a FIFO') as string,
    });
  });

  it('refuses to read a device, a socket, or a link to a FIFO', async () => {
    await expect(files['files.read']({ path: '/dev/null', max_bytes: 10 })).rejects.toMatchObject({
      code: 'invalid_argument',
      message: expect.stringContaining('a device') as string,
    });
    const socketPath = at('sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      await expect(files['files.read']({ path: socketPath, max_bytes: 10 })).rejects.toMatchObject({
        code: 'invalid_argument',
        message: expect.stringContaining('a socket') as string,
      });
    } finally {
      server.close();
    }
    execFileSync('mkfifo', [at('pipe')]);
    await symlink(at('pipe'), at('pipe-link'));
    const opens = await opensOfFifoDuring(at('pipe'), () =>
      expect(files['files.read']({ path: at('pipe-link'), max_bytes: 10 })).rejects.toMatchObject({
        code: 'invalid_argument',
      }),
    );
    expect(opens).toBe(0);
  });

  it('refuses to copy a device or a tree holding a FIFO, and opens neither', async () => {
    // /dev/null stands for /dev/zero (which would fill the disk) and /dev/watchdog (which would reboot).
    await expect(
      files['files.copy']({ from: '/dev/null', to: at('null-copy'), overwrite: false }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    expect(existsSync(at('null-copy'))).toBe(false);
    await mkdir(at('tree'));
    await writeFile(at('tree', 'a.txt'), 'a');
    execFileSync('mkfifo', [at('tree', 'pipe')]);
    const opens = await opensOfFifoDuring(at('tree', 'pipe'), () =>
      expect(
        files['files.copy']({ from: at('tree'), to: at('tree-copy'), overwrite: false }),
      ).rejects.toMatchObject({ code: 'invalid_argument' }),
    );
    expect(opens).toBe(0);
  });
});
