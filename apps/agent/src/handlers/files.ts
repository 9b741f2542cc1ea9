/**
 * files.*: list, read, write, mkdir, rename, copy, delete. Every path must be absolute and already normal
 * (no `.`/`..` segments, no doubled or trailing slashes, no NUL): the agent refuses what the hub should have
 * canonicalized instead of guessing. Reads are sized before they are read, data travels as base64, writes
 * honour `overwrite`, and delete never follows a symbolic link.
 *
 * Each path is resolved before use (links, /proc/self) and refused when the guard protects it; the operation
 * then runs on the resolved path, so a link swapped in after the check is not followed. Nothing but a
 * regular file is ever opened: opening a FIFO releases its writer, opening /dev/watchdog reboots the host.
 */
import { constants, type Stats } from 'node:fs';
import {
  cp,
  lstat,
  mkdir,
  open,
  opendir,
  readdir,
  readlink,
  rename,
  rm,
  rmdir,
  stat,
  unlink,
  type FileHandle,
} from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import {
  agentLimits,
  type AgentRequestPayload,
  type AgentRequestResult,
  type FileEntry,
} from '@svc/protocol';
import { AgentError, agentErrorFromErrno } from './agent-error.js';
import { openGuard, resolveEntry, resolveNearest, type PathGuard } from './protected-paths.js';
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

const join = (dir: string, name: string) => (dir === '/' ? `/${name}` : `${dir}/${name}`);

async function listDirectory(
  guard: PathGuard,
  { path: dir }: AgentRequestPayload<'files.list'>,
): Promise<AgentRequestResult<'files.list'>> {
  checkPath(dir);
  // A directory that holds a protected path lists (names only); inside it is refused.
  const real = await resolveNearest(dir);
  await guard.check(dir, [real]);
  const names: string[] = [];
  let truncated = false;
  try {
    const handle = await opendir(real);
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
    const stats = await lstatOrNull(join(real, name)).catch(() => null);
    if (stats) entries.push(describe(name, stats)); // gone or unreadable since readdir: leave it out
  }
  return { path: dir, entries, truncated };
}

function refuseUnlessRegular(shown: string, stats: Stats): void {
  if (stats.isDirectory()) throw new AgentError('is_directory', `${shown}: is a directory`);
  if (!stats.isFile()) {
    const kind = stats.isFIFO()
      ? 'a FIFO'
      : stats.isSocket()
        ? 'a socket'
        : stats.isCharacterDevice() || stats.isBlockDevice()
          ? 'a device'
          : stats.isSymbolicLink()
            ? 'a symbolic link'
            : 'not a regular file';
    throw new AgentError(
      'invalid_argument',
      `${shown}: not a regular file (${kind}); only regular files are read`,
    );
  }
}

/**
 * Opens `real` (already resolved and checked) for reading only if it is a regular file: the type is checked
 * before the open, the open follows no link and does not block, and the file opened must be the one checked.
 * On Linux the kernel's own name of the open file is checked against the guard again, which closes the gap
 * between the check and the open.
 */
export async function openRegularFile(
  shown: string,
  real: string,
  guard: PathGuard,
): Promise<{ handle: FileHandle; stats: Stats }> {
  let before: Stats;
  try {
    before = await lstat(real);
  } catch (error) {
    throw agentErrorFromErrno(error, shown);
  }
  refuseUnlessRegular(shown, before);
  let handle: FileHandle;
  try {
    handle = await open(real, constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW);
  } catch (error) {
    throw agentErrorFromErrno(error, shown);
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile() || stats.dev !== before.dev || stats.ino !== before.ino)
      throw new AgentError('invalid_argument', `${shown}: changed while it was being opened`);
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => null);
    if (opened !== null) await guard.check(shown, [opened]);
    return { handle, stats };
  } catch (error) {
    await handle.close();
    throw agentErrorFromErrno(error, shown);
  }
}

async function readFileData(
  guard: PathGuard,
  { path: file, max_bytes: maxBytes }: AgentRequestPayload<'files.read'>,
): Promise<AgentRequestResult<'files.read'>> {
  checkPath(file);
  const real = await resolveNearest(file);
  await guard.check(file, [real]);
  const { handle, stats } = await openRegularFile(file, real, guard);
  try {
    if (stats.size > maxBytes)
      throw new AgentError('too_large', `${file}: ${stats.size} bytes is over the limit of ${maxBytes}`);
    // Read until EOF or one byte past the limit: files under /proc say size 0, and a file may grow after the stat.
    const chunks: Buffer[] = [];
    let length = 0;
    // Chunks sized to the file (one byte more, to see its end), not 1 MB each: a 64 KiB file touched 2 MB,
    // which the agent then kept (decision 0085). Only what was read is kept of each chunk.
    const want = Math.max(stats.size + 1, 64 * 1024);
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(1024 * 1024, want, maxBytes + 1 - length));
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

/**
 * The entry `file` names (its parent resolved, so a link stays the link) after the guard allowed both it and
 * what it points to; `tree` also refuses an entry that contains something protected (moved, copied, deleted).
 */
async function guardedEntry(guard: PathGuard, file: string, tree = false): Promise<string> {
  const entry = await resolveEntry(file);
  const target = await resolveNearest(file);
  if (tree) await guard.checkTree(file, [entry, target]);
  else await guard.check(file, [entry, target]);
  return entry;
}

async function writeFileData(
  guard: PathGuard,
  { path: shown, data_base64: data, overwrite }: AgentRequestPayload<'files.write'>,
): Promise<AgentRequestResult<'files.write'>> {
  checkPath(shown);
  const file = await guardedEntry(guard, shown);
  const bytes = decodeBase64(data);
  if (bytes.length > agentLimits.fileBytes)
    throw new AgentError(
      'too_large',
      `file of ${bytes.length} bytes is over the limit of ${agentLimits.fileBytes}`,
    );
  await requireParentDirectory(file);
  const existing = await lstatOrNull(file);
  if (existing?.isDirectory()) throw new AgentError('is_directory', `${shown}: is a directory`);
  if (existing && !overwrite)
    throw new AgentError('exists', `${shown}: already exists (set overwrite to replace it)`);

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
      throw agentErrorFromErrno(error, shown);
    }
    return { path: shown, size: bytes.length };
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
    throw agentErrorFromErrno(error, shown);
  }
  return { path: shown, size: bytes.length };
}

async function makeDirectory(
  guard: PathGuard,
  { path: shown, recursive }: AgentRequestPayload<'files.mkdir'>,
): Promise<AgentRequestResult<'files.mkdir'>> {
  checkPath(shown);
  const dir = await guardedEntry(guard, shown);
  const existing = await lstatOrNull(dir);
  if (existing && !(recursive && existing.isDirectory()))
    throw new AgentError('exists', `${shown}: already exists`);
  try {
    await mkdir(dir, { recursive, mode: 0o755 });
  } catch (error) {
    throw agentErrorFromErrno(error, shown);
  }
  return { path: shown };
}

function checkPair(from: string, to: string): void {
  checkPath(from);
  checkPath(to);
  if (from === '/' || to === '/') throw new AgentError('invalid_path', 'refusing to move or replace /');
  if (from === to) throw new AgentError('invalid_argument', 'source and destination are the same');
  if (to.startsWith(`${from}/`))
    throw new AgentError('invalid_argument', 'cannot move or copy a directory into itself');
}

async function renamePath(
  guard: PathGuard,
  { from, to, overwrite }: AgentRequestPayload<'files.rename'>,
): Promise<AgentRequestResult<'files.rename'>> {
  checkPair(from, to);
  const source = await guardedEntry(guard, from, true);
  const target = await guardedEntry(guard, to, true);
  if (!(await lstatOrNull(source))) throw new AgentError('not_found', `${from}: no such file or directory`);
  await requireParentDirectory(target);
  if ((await lstatOrNull(target)) && !overwrite)
    throw new AgentError('exists', `${to}: already exists (set overwrite to replace it)`);
  try {
    await rename(source, target);
  } catch (error) {
    throw agentErrorFromErrno(error, to);
  }
  return { from, to };
}

/** Copy reads what it copies: only files, directories and links (copied as links) are let through. */
async function copyable(file: string): Promise<boolean> {
  const stats = await lstat(file);
  if (stats.isFile() || stats.isDirectory() || stats.isSymbolicLink()) return true;
  refuseUnlessRegular(file, stats);
  return false;
}

async function copyPath(
  guard: PathGuard,
  { from: shownFrom, to: shownTo, overwrite }: AgentRequestPayload<'files.copy'>,
): Promise<AgentRequestResult<'files.copy'>> {
  checkPair(shownFrom, shownTo);
  const from = await guardedEntry(guard, shownFrom, true);
  const to = await guardedEntry(guard, shownTo, true);
  const source = await lstatOrNull(from);
  if (!source) throw new AgentError('not_found', `${shownFrom}: no such file or directory`);
  if (!source.isDirectory() && !source.isSymbolicLink()) refuseUnlessRegular(shownFrom, source);
  await requireParentDirectory(to);
  const target = await lstatOrNull(to);
  if (target && !overwrite)
    throw new AgentError('exists', `${shownTo}: already exists (set overwrite to replace it)`);
  if (target?.isDirectory() && !source.isDirectory())
    throw new AgentError('is_directory', `${shownTo}: is a directory`);
  try {
    // Links are copied as links, never followed into what they point at.
    await cp(from, to, {
      recursive: source.isDirectory(),
      force: overwrite,
      errorOnExist: !overwrite,
      verbatimSymlinks: true,
      dereference: false,
      filter: copyable,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('ERR_FS_CP_') && code !== 'ERR_FS_CP_EEXIST')
      throw new AgentError(
        'invalid_argument',
        `cannot copy ${shownFrom} to ${shownTo}: ${(error as Error).message}`,
      );
    throw agentErrorFromErrno(error, shownTo);
  }
  return { from: shownFrom, to: shownTo };
}

async function deletePath(
  guard: PathGuard,
  { path: shown, recursive }: AgentRequestPayload<'files.delete'>,
): Promise<AgentRequestResult<'files.delete'>> {
  checkPath(shown);
  if (shown === '/') throw new AgentError('invalid_path', 'refusing to delete /');
  const target = await guardedEntry(guard, shown, true);
  const stats = await lstatOrNull(target); // lstat: a link is removed itself, never what it points at
  if (!stats) throw new AgentError('not_found', `${shown}: no such file or directory`);
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
          `${shown}: directory is not empty (set recursive to delete it with its contents)`,
        );
      }
      await rmdir(target);
    }
  } catch (error) {
    throw agentErrorFromErrno(error, shown);
  }
  return { path: shown };
}

export interface FilesOptions {
  /** What no file operation may touch; nothing by default (an agent not on the hub's host). */
  guard?: PathGuard;
}

export function createFilesHandlers(
  options: FilesOptions = {},
): Pick<
  HandlerMap,
  'files.list' | 'files.read' | 'files.write' | 'files.mkdir' | 'files.rename' | 'files.copy' | 'files.delete'
> {
  const guard = options.guard ?? openGuard;
  return {
    'files.list': (payload) => listDirectory(guard, payload),
    'files.read': (payload) => readFileData(guard, payload),
    'files.write': (payload) => writeFileData(guard, payload),
    'files.mkdir': (payload) => makeDirectory(guard, payload),
    'files.rename': (payload) => renamePath(guard, payload),
    'files.copy': (payload) => copyPath(guard, payload),
    'files.delete': (payload) => deletePath(guard, payload),
  };
}
