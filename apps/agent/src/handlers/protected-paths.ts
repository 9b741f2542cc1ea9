/**
 * The hub's own secrets are out of reach through an agent, whatever the caller may do: the local agent is
 * told (setting `protected_paths`, `protected_pids`) where the hub keeps its data directory and keys and
 * which process it is. Every file operation resolves its path first (symbolic links, `/proc/self`) and is
 * refused with `forbidden_path` when the real path is, or is under, a protected path or `/proc/<pid>` of a
 * protected process, of one of its threads or of one of its descendants. Operations that move, copy or delete a whole tree are also
 * refused when the tree contains a protected path.
 */
import { lstat, readFile, readlink, realpath } from '../platform/fs-async.js';
import path from 'node:path';
import { AgentError, agentErrorFromErrno } from './agent-error.js';

const forbiddenPathMessage = "this path holds the hub's own secrets and cannot be used through an agent";

/** Longest chain of dangling links followed by hand, as the kernel's own limit. */
const maxLinkHops = 40;
/** How far up the parent chain a process is traced to a protected one. */
const maxAncestors = 64;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * The real path of `file`, or for a path that does not exist yet (a write or mkdir target), the real path
 * of its nearest existing ancestor with the rest appended. A dangling link is followed to where it points,
 * so creating through it is judged by its target.
 */
export async function resolveNearest(file: string): Promise<string> {
  let current = file;
  let rest = '';
  let hops = 0;
  for (;;) {
    try {
      const real = await realpath(current);
      return rest === '' ? real : path.posix.join(real, rest);
    } catch (error) {
      if (!isMissing(error)) throw agentErrorFromErrno(error, file);
    }
    const stats = await lstat(current).catch((error: unknown) => {
      if (isMissing(error)) return null;
      throw agentErrorFromErrno(error, file);
    });
    if (stats?.isSymbolicLink()) {
      hops += 1;
      if (hops > maxLinkHops) throw new AgentError('invalid_path', `${file}: too many symbolic links`);
      const target = await readlink(current);
      current = path.posix.resolve(path.posix.dirname(current), target);
      continue;
    }
    const parent = path.posix.dirname(current);
    rest = rest === '' ? path.posix.basename(current) : path.posix.join(path.posix.basename(current), rest);
    current = parent;
  }
}

/** Where the entry itself lives: its parent resolved, its own name kept (a link stays the link). */
export async function resolveEntry(file: string): Promise<string> {
  if (file === '/') return '/';
  const parent = await resolveNearest(path.posix.dirname(file));
  return path.posix.join(parent, path.posix.basename(file));
}

function isAtOrUnder(candidate: string, root: string): boolean {
  return candidate === root || root === '/' || candidate.startsWith(`${root}/`);
}

export interface ProtectedPathsOptions {
  /** Absolute paths: the hub's data directory, key files, the agent's own settings file. */
  paths: readonly string[];
  /** Processes whose `/proc/<pid>` (and their threads') are out of reach: the hub, the agent itself. */
  pids: readonly number[];
  /** Where procfs is mounted; tests point elsewhere. */
  procRoot?: string;
}

export interface PathGuard {
  /** Refuses `file` (as given and as resolved) when it is, or is under, something protected. */
  check(file: string, resolved: readonly string[]): Promise<void>;
  /** Refuses as `check`, and also when the tree at `file` contains something protected. */
  checkTree(file: string, resolved: readonly string[]): Promise<void>;
}

/** A guard that protects nothing: agents that are not on the hub's host and were told of no paths. */
export const openGuard: PathGuard = {
  check: () => Promise.resolve(),
  checkTree: () => Promise.resolve(),
};

/** The running agent's guard: what the hub asked for, plus the agent's own settings file and process. */
export function createAgentGuard(
  settings: { protectedPaths: readonly string[]; protectedPids: readonly number[] },
  settingsFile: string,
): PathGuard {
  return createPathGuard({
    paths: [...settings.protectedPaths, settingsFile],
    pids: [...settings.protectedPids, process.pid],
  });
}

export function createPathGuard(options: ProtectedPathsOptions): PathGuard {
  const procRoot = options.procRoot ?? '/proc';
  const pids = new Set(options.pids.filter((pid) => Number.isInteger(pid) && pid > 0));
  const configured = options.paths.filter((p) => p.startsWith('/')).map((p) => path.posix.normalize(p));

  /** The protected roots as configured and as they resolve now (a moved or linked data directory). */
  async function roots(): Promise<string[]> {
    const all = new Set<string>();
    for (const root of configured) {
      all.add(root.length > 1 ? root.replace(/\/+$/, '') : root);
      all.add(await resolveNearest(root).catch(() => root));
    }
    for (const pid of pids) all.add(`${procRoot}/${pid}`);
    return [...all];
  }

  /** Tgid and PPid of a `/proc/<n>` entry: threads answer as `/proc/<tid>` too, under their own id. */
  async function statusOf(n: number): Promise<{ tgid: number; ppid: number } | null> {
    const status = await readFile(`${procRoot}/${n}/status`, 'utf8').catch(() => null);
    if (status === null) return null;
    const tgid = /^Tgid:\s*(\d+)$/m.exec(status)?.[1];
    const ppid = /^PPid:\s*(\d+)$/m.exec(status)?.[1];
    return tgid === undefined || ppid === undefined ? null : { tgid: Number(tgid), ppid: Number(ppid) };
  }

  /**
   * A protected process, one of its threads, or one of its descendants: children inherit the environment
   * (a hub that started its agent with its own, an exec the agent runs), so theirs is as secret.
   */
  async function isProtectedPid(n: number): Promise<boolean> {
    let current = n;
    for (let hops = 0; hops < maxAncestors; hops++) {
      if (pids.has(current)) return true;
      const status = await statusOf(current);
      if (!status) return false;
      if (pids.has(status.tgid)) return true;
      if (status.ppid <= 1) return false;
      current = status.ppid;
    }
    return false;
  }

  async function isProtectedProc(candidate: string): Promise<boolean> {
    if (!isAtOrUnder(candidate, procRoot) || candidate === procRoot) return false;
    const first = candidate.slice(procRoot.length + 1).split('/')[0] ?? '';
    if (first === 'self' || first === 'thread-self') return true; // resolved, these name the agent itself
    if (!/^\d+$/.test(first)) return false;
    return isProtectedPid(Number(first));
  }

  async function isProtected(candidate: string, protectedRoots: readonly string[]): Promise<boolean> {
    if (protectedRoots.some((root) => isAtOrUnder(candidate, root))) return true;
    return isProtectedProc(candidate);
  }

  const refuse = (file: string) => new AgentError('forbidden_path', `${file}: ${forbiddenPathMessage}`);

  async function check(file: string, resolved: readonly string[]): Promise<void> {
    const protectedRoots = await roots();
    for (const candidate of [file, ...resolved]) {
      if (await isProtected(candidate, protectedRoots)) throw refuse(file);
    }
  }

  return {
    check,
    async checkTree(file, resolved) {
      await check(file, resolved);
      const protectedRoots = await roots();
      for (const candidate of [file, ...resolved]) {
        if (protectedRoots.some((root) => isAtOrUnder(root, candidate))) throw refuse(file);
      }
    },
  };
}
