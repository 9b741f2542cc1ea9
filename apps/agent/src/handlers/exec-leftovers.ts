/**
 * What an exec leaves behind. Killing the command's process group on a timeout misses a child that called
 * `setsid` (a new session and group) and, when the command exits normally, nothing ends its background jobs.
 * An exec is a one-shot: when the command has ended, every process it started is found and ended, and the
 * result says how many there were. Users who want a daemon use a service, not `nohup … &`.
 *
 * No cgroup or systemd scope is assumed (many hosts and containers have neither to give): a process belongs
 * to the exec when it carries the exec's marker variable in its environment (inherited by everything the
 * command starts, whatever session or group it moves to), or sits in the exec's session or process group, or
 * descends from such a process. A process that clears its environment and leaves the session and group
 * (`env -i setsid …`) before being re-parented escapes this; a cgroup would be needed for that.
 */
import { readFile, readdir } from 'node:fs/promises';

/** The variable each exec's process tree carries, with a value unique to that exec. */
export const execMarkerVariable = 'SVC_EXEC_ID';

export interface ProcessView {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** The marker variable's value, when the process has one. */
  marker: string | null;
}

export interface Leftovers {
  /** Processes of the exec still running after its command ended. */
  count: number;
  /** Whether all of them were ended. */
  killed: boolean;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
export function parseStat(text: string): { state: string; ppid: number; pgid: number; sid: number } | null {
  const end = text.lastIndexOf(')');
  if (end < 0) return null;
  const fields = text.slice(end + 2).split(' ');
  const [state, ppid, pgid, sid] = [fields[0], Number(fields[1]), Number(fields[2]), Number(fields[3])];
  if (state === undefined || ![ppid, pgid, sid].every(Number.isInteger)) return null;
  return { state, ppid, pgid, sid };
}

/** How many processes the scan reads at once. */
const scanConcurrency = 8;

function markerOf(environ: Buffer): string | null {
  const prefix = `${execMarkerVariable}=`;
  for (const entry of environ.toString('utf8').split('\0')) {
    if (entry.startsWith(prefix)) return entry.slice(prefix.length);
  }
  return null;
}

/** Every live process (zombies are already ended); null where there is no procfs to read. */
async function scanProcesses(procRoot = '/proc'): Promise<ProcessView[] | null> {
  let names: string[];
  try {
    names = await readdir(procRoot);
  } catch {
    return null;
  }
  // A few at a time: the scan runs after every exec, and /proc reads wait on nothing but the kernel, but each
  // read of a /proc file (size 0 to stat) takes a 64 KiB buffer: all processes at once (hundreds) held
  // megabytes at a time, which the agent then kept (decision 0085).
  const pids = names.filter((name) => /^\d+$/.test(name));
  const views: (ProcessView | null)[] = new Array<ProcessView | null>(pids.length).fill(null);
  let next = 0;
  const worker = async () => {
    while (next < pids.length) {
      const index = next++;
      views[index] = await readProcess(procRoot, pids[index] ?? '');
    }
  };
  await Promise.all(Array.from({ length: Math.min(scanConcurrency, pids.length) }, worker));
  return views.filter((view): view is ProcessView => view !== null);
}

async function readProcess(procRoot: string, name: string): Promise<ProcessView | null> {
  const stat = await readFile(`${procRoot}/${name}/stat`, 'utf8').catch(() => null);
  const parsed = stat === null ? null : parseStat(stat);
  if (!parsed || parsed.state === 'Z' || parsed.state === 'X') return null;
  const environ = await readFile(`${procRoot}/${name}/environ`).catch(() => null);
  return {
    pid: Number(name),
    ppid: parsed.ppid,
    pgid: parsed.pgid,
    sid: parsed.sid,
    marker: environ === null ? null : markerOf(environ),
  };
}

/** The processes that belong to the exec whose shell was `leaderPid` and whose marker is `marker`. */
export function belongingTo(
  processes: readonly ProcessView[],
  exec: { marker: string; leaderPid: number; selfPid: number },
): number[] {
  const members = new Set<number>();
  for (const p of processes) {
    if (p.pid === exec.selfPid || p.pid === exec.leaderPid) continue;
    if (p.marker === exec.marker || p.pgid === exec.leaderPid || p.sid === exec.leaderPid) members.add(p.pid);
  }
  // Descendants of members: a child that cleared its environment is still someone's child.
  const children = new Map<number, number[]>();
  for (const p of processes) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p.pid]);
  const queue = [...members];
  while (queue.length > 0) {
    const pid = queue.pop() ?? 0;
    for (const child of children.get(pid) ?? []) {
      if (child === exec.selfPid || members.has(child)) continue;
      members.add(child);
      queue.push(child);
    }
  }
  return [...members].sort((a, b) => a - b);
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Gone already, or not ours to signal: the final scan tells.
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export interface SweepOptions {
  marker: string;
  leaderPid: number;
  /**
   * After a timeout the command's own group was already killed: its members may still be dying, and are not
   * leftovers. Ended like the rest, they are not counted.
   */
  uncountedGroup?: number | null;
  /** SIGTERM first; what is still running after this long gets SIGKILL. */
  graceMs: number;
  procRoot?: string;
}

/**
 * Ends what the exec left running: SIGTERM, then SIGKILL after the grace. Null where processes cannot be
 * seen (no procfs); the caller then has only the process group to go by.
 */
export async function sweepLeftovers(options: SweepOptions): Promise<Leftovers | null> {
  const exec = { marker: options.marker, leaderPid: options.leaderPid, selfPid: process.pid };
  let counted = 0;
  const find = async (first = false) => {
    const processes = await scanProcesses(options.procRoot);
    if (processes === null) return null;
    const pids = belongingTo(processes, exec);
    if (first) {
      const group = new Set(processes.filter((p) => p.pgid === options.uncountedGroup).map((p) => p.pid));
      counted = pids.filter((pid) => !group.has(pid)).length;
    }
    return pids;
  };
  const found = await find(true);
  if (found === null) return null;
  if (found.length === 0) return { count: 0, killed: true };
  for (const pid of found) signal(pid, 'SIGTERM');
  const deadline = performance.now() + options.graceMs;
  let remaining = found;
  while (remaining.length > 0 && performance.now() < deadline) {
    await sleep(25);
    remaining = (await find()) ?? [];
  }
  if (remaining.length > 0) {
    for (const pid of remaining) signal(pid, 'SIGKILL');
    for (let i = 0; i < 40 && remaining.length > 0; i++) {
      await sleep(25);
      remaining = (await find()) ?? [];
    }
  }
  return { count: counted, killed: remaining.length === 0 };
}
