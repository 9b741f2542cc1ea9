/**
 * files.*: list, read, write, mkdir, rename, copy, delete. Every path must be absolute and already normal
 * (no `.`/`..` segments, no doubled or trailing slashes, no NUL): the agent refuses what the hub should have
 * canonicalized instead of guessing. Reads are sized before they are read, data travels as base64, writes
 * honour `overwrite`, and delete never follows a symbolic link.
 */
import { constants, type Stats } from 'node:fs';
import { cp, lstat, mkdir, open, opendir, readdir, rename, rm, rmdir, stat, unlink } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  agentLimits,
  type AgentRequestPayload,
  type AgentRequestResult,
  type FileEntry,
} from '@svc/protocol';
import { AgentError, agentErrorFromErrno } from './agent-error.js';
import type { HandlerMap } from './types.js';

/** The path itself if it is absolute and normal; AgentError `invalid_path` otherwise. */
export function checkPath(value: string): string {
  if (value.includes('\0')) throw new AgentError('invalid_path', 'path contains a NUL byte');
  if (value.length === 0 || value.length > agentLimits.pathLength)
    throw new AgentError('invalid_path', 'path is empty or too long');
  if (!value.startsWith('/')) throw new AgentError('invalid_path', `path must be absolute: ${value}`);
  if (path.posix.normalize(value) !== value || (value !== '/' && value.endsWith('/'))) {
    throw new AgentError('invalid_path', `path must be normalized (no ., .., // or trailing /): ${value}`);
  }
  return value;
}

async function lstatOrNull(file: string): Promise<Stats | null> {
  try {
    return await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw agentErrorFromErrno(error, file);
  }
}

function entryType(stats: Stats): FileEntry['type'] {
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFile()) return 'file';
  return 'other';
}

function describe(name: string, stats: Stats): FileEntry {
  return {
    name,
    type: entryType(stats),
    size: stats.isFile() ? stats.size : 0,
    mode: (stats.mode & 0o7777).toString(8).padStart(4, '0'),
    modified_at: Number.isFinite(stats.mtimeMs) ? stats.mtime.toISOString() : null,
  };
}

async function listDirectory({
  path: dir,
}: AgentRequestPayload<'files.list'>): Promise<AgentRequestResult<'files.list'>> {
  checkPath(dir);
  const names: string[] = [];
  let truncated = false;
  try {
    const handle = await opendir(dir);
    for await (const entry of handle) {
      if (names.length === agentLimits.listEntries) {
        truncated = true;
        break;
      }
      names.push(entry.name);
    }
  } catch (error) {
    throw agentErrorFromErrno(error, dir);
  }
  names.sort();
  const entries: FileEntry[] = [];
  for (const name of names) {
    const full = dir === '/' ? `/${name}` : `${dir}/${name}`;
    const stats = await lstatOrNull(full).catch(() => null);
    if (stats) entries.push(describe(name, stats)); // gone or unreadable since readdir: leave it out
  }
  return { path: dir, entries, truncated };
}

async function readFileData({
  path: file,
  max_bytes: maxBytes,
}: AgentRequestPayload<'files.read'>): Promise<AgentRequestResult<'files.read'>> {
  checkPath(file);
  let handle;
  try {
    // O_NONBLOCK so a FIFO cannot hang the agent; it is refused below as not a regular file.
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw agentErrorFromErrno(error, file);
  }
  try {
    const stats = await handle.stat();
    if (stats.isDirectory()) throw new AgentError('is_directory', `${file}: is a directory`);
    if (!stats.isFile()) throw new AgentError('invalid_argument', `${file}: not a regular file`);
    if (stats.size > maxBytes)
      throw new AgentError('too_large', `${file}: ${stats.size} bytes is over the limit of ${maxBytes}`);
    // Read until EOF or one byte past the limit: files under /proc say size 0, and a file may grow after the stat.
    const chunks: Buffer[] = [];
    let length = 0;
    for (;;) {
      const chunk = Buffer.alloc(Math.min(1024 * 1024, maxBytes + 1 - length));
      const { bytesRead } = await handle.read(chunk, 0, chunk.length, null);
      if (bytesRead === 0) break;
      chunks.push(chunk.subarray(0, bytesRead));
      length += bytesRead;
      if (length > maxBytes)
        throw new AgentError('too_large', `${file}: larger than the limit of ${maxBytes} bytes`);
    }
    const buffer = Buffer.concat(chunks, length);
    return { path: file, size: length, data_base64: buffer.toString('base64') };
  } catch (error) {
    throw agentErrorFromErrno(error, file);
  } finally {
    await handle.close();
  }
}

function decodeBase64(text: string): Buffer {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) {
    throw new AgentError('invalid_argument', 'data_base64 is not valid base64');
  }
  return Buffer.from(text, 'base64');
}

async function requireParentDirectory(file: string): Promise<void> {
  const parent = path.posix.dirname(file);
  let stats: Stats;
  try {
    stats = await stat(parent);
  } catch (error) {
    throw agentErrorFromErrno(error, parent);
  }
  if (!stats.isDirectory()) throw new AgentError('not_directory', `${parent}: not a directory`);
}

async function writeFileData({
  path: file,
  data_base64: data,
  overwrite,
}: AgentRequestPayload<'files.write'>): Promise<AgentRequestResult<'files.write'>> {
  checkPath(file);
  const bytes = decodeBase64(data);
  if (bytes.length > agentLimits.fileBytes)
    throw new AgentError(
      'too_large',
      `file of ${bytes.length} bytes is over the limit of ${agentLimits.fileBytes}`,
    );
  await requireParentDirectory(file);
  const existing = await lstatOrNull(file);
  if (existing?.isDirectory()) throw new AgentError('is_directory', `${file}: is a directory`);
  if (existing && !overwrite)
    throw new AgentError('exists', `${file}: already exists (set overwrite to replace it)`);

  if (!existing) {
    // O_EXCL: if something appeared since the check, refuse rather than replace it.
    try {
      const handle = await open(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o644);
      try {
        await handle.writeFile(bytes);
      } finally {
        await handle.close();
      }
    } catch (error) {
      throw agentErrorFromErrno(error, file);
    }
    return { path: file, size: bytes.length };
  }

  // Replace: write beside it and rename, so readers see the old or the new file, never a mix.
  const temporary = path.posix.join(
    path.posix.dirname(file),
    `.${path.posix.basename(file)}.svc-${randomBytes(6).toString('hex')}`,
  );
  try {
    const handle = await open(
      temporary,
      constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
      existing.isFile() ? existing.mode & 0o7777 : 0o644,
    );
    try {
      await handle.writeFile(bytes);
      if (existing.isFile()) {
        await handle.chmod(existing.mode & 0o7777);
        await handle.chown(existing.uid, existing.gid).catch(() => undefined); // only root may give files away
      }
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw agentErrorFromErrno(error, file);
  }
  return { path: file, size: bytes.length };
}

async function makeDirectory({
  path: dir,
  recursive,
}: AgentRequestPayload<'files.mkdir'>): Promise<AgentRequestResult<'files.mkdir'>> {
  checkPath(dir);
  const existing = await lstatOrNull(dir);
  if (existing && !(recursive && existing.isDirectory()))
    throw new AgentError('exists', `${dir}: already exists`);
  try {
    await mkdir(dir, { recursive, mode: 0o755 });
  } catch (error) {
    throw agentErrorFromErrno(error, dir);
  }
  return { path: dir };
}

function checkPair(from: string, to: string): void {
  checkPath(from);
  checkPath(to);
  if (from === '/' || to === '/') throw new AgentError('invalid_path', 'refusing to move or replace /');
  if (from === to) throw new AgentError('invalid_argument', 'source and destination are the same');
  if (to.startsWith(`${from}/`))
    throw new AgentError('invalid_argument', 'cannot move or copy a directory into itself');
}

async function renamePath({
  from,
  to,
  overwrite,
}: AgentRequestPayload<'files.rename'>): Promise<AgentRequestResult<'files.rename'>> {
  checkPair(from, to);
  if (!(await lstatOrNull(from))) throw new AgentError('not_found', `${from}: no such file or directory`);
  await requireParentDirectory(to);
  if ((await lstatOrNull(to)) && !overwrite)
    throw new AgentError('exists', `${to}: already exists (set overwrite to replace it)`);
  try {
    await rename(from, to);
  } catch (error) {
    throw agentErrorFromErrno(error, to);
  }
  return { from, to };
}

async function copyPath({
  from,
  to,
  overwrite,
}: AgentRequestPayload<'files.copy'>): Promise<AgentRequestResult<'files.copy'>> {
  checkPair(from, to);
  const source = await lstatOrNull(from);
  if (!source) throw new AgentError('not_found', `${from}: no such file or directory`);
  await requireParentDirectory(to);
  const target = await lstatOrNull(to);
  if (target && !overwrite)
    throw new AgentError('exists', `${to}: already exists (set overwrite to replace it)`);
  if (target?.isDirectory() && !source.isDirectory())
    throw new AgentError('is_directory', `${to}: is a directory`);
  try {
    // Links are copied as links, never followed into what they point at.
    await cp(from, to, {
      recursive: source.isDirectory(),
      force: overwrite,
      errorOnExist: !overwrite,
      verbatimSymlinks: true,
      dereference: false,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('ERR_FS_CP_') && code !== 'ERR_FS_CP_EEXIST')
      throw new AgentError('invalid_argument', `cannot copy ${from} to ${to}: ${(error as Error).message}`);
    throw agentErrorFromErrno(error, to);
  }
  return { from, to };
}

async function deletePath({
  path: target,
  recursive,
}: AgentRequestPayload<'files.delete'>): Promise<AgentRequestResult<'files.delete'>> {
  checkPath(target);
  if (target === '/') throw new AgentError('invalid_path', 'refusing to delete /');
  const stats = await lstatOrNull(target); // lstat: a link is removed itself, never what it points at
  if (!stats) throw new AgentError('not_found', `${target}: no such file or directory`);
  try {
    if (!stats.isDirectory()) {
      await unlink(target);
    } else if (recursive) {
      // rm does not follow links inside the tree either: it unlinks them.
      await rm(target, { recursive: true, force: false });
    } else {
      if ((await readdir(target)).length > 0) {
        throw new AgentError(
          'is_directory',
          `${target}: directory is not empty (set recursive to delete it with its contents)`,
        );
      }
      await rmdir(target);
    }
  } catch (error) {
    throw agentErrorFromErrno(error, target);
  }
  return { path: target };
}

export function createFilesHandlers(): Pick<
  HandlerMap,
  'files.list' | 'files.read' | 'files.write' | 'files.mkdir' | 'files.rename' | 'files.copy' | 'files.delete'
> {
  return {
    'files.list': listDirectory,
    'files.read': readFileData,
    'files.write': writeFileData,
    'files.mkdir': makeDirectory,
    'files.rename': renamePath,
    'files.copy': copyPath,
    'files.delete': deletePath,
  };
}
