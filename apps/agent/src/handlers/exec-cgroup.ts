/**
 * Where the host gives one, each exec runs in its own cgroup v2 sub-group of the agent's cgroup: nothing the
 * command starts can leave it (not `setsid`, not a cleared environment), so ending the exec ends them all.
 * The sub-group is made under the agent's own cgroup, which needs root or a delegated cgroup
 * (`Delegate=yes` in the unit); where that fails the exec runs without one and exec-leftovers.ts is the only
 * containment.
 */
import { mkdir, readFile, rmdir, writeFile } from 'node:fs/promises';
import { parseStat, type Leftovers } from './exec-leftovers.js';

export interface ExecCgroup {
  dir: string;
}

/** The mount point of the cgroup v2 hierarchy and its root, from mountinfo. */
export function parseCgroup2Mount(mountinfo: string): { mountPoint: string; root: string } | null {
  for (const line of mountinfo.split('\n')) {
    const [before, after] = line.split(' - ');
    if (!before || !after || !after.startsWith('cgroup2 ')) continue;
    const fields = before.split(' ');
    const root = fields[3];
    const mountPoint = fields[4];
    if (root !== undefined && mountPoint !== undefined) return { mountPoint, root };
  }
  return null;
}

/** The directory of this process's own cgroup v2; null where there is no cgroup v2 hierarchy. */
async function ownCgroupDir(): Promise<string | null> {
  const [cgroup, mountinfo] = await Promise.all([
    readFile('/proc/self/cgroup', 'utf8').catch(() => ''),
    readFile('/proc/self/mountinfo', 'utf8').catch(() => ''),
  ]);
  const own = /^0::(\/.*)$/m.exec(cgroup)?.[1];
  const mount = parseCgroup2Mount(mountinfo);
  if (own === undefined || !mount || own.includes(' (deleted)')) return null;
  const relative = mount.root !== '/' && own.startsWith(mount.root) ? own.slice(mount.root.length) : own;
  return `${mount.mountPoint}${relative === '/' ? '' : relative}`;
}

let detected: Promise<string | null> | undefined;

/**
 * A fresh sub-group for one exec, or null where none can be made. `base` overrides where (tests); null
 * means no cgroups at all.
 */
export async function createExecCgroup(id: string, base?: string | null): Promise<ExecCgroup | null> {
  const parent = base === undefined ? await (detected ??= ownCgroupDir()) : base;
  if (parent === null) return null;
  const dir = `${parent}/svc-exec-${id}`;
  try {
    await mkdir(dir);
    return { dir };
  } catch {
    return null;
  }
}

/**
 * The command line that joins the sub-group before running the command: the shell moves itself in, then
 * execs the real shell, so no process of the command ever runs outside it. Joining is best effort: if it
 * fails, the command still runs, and the marker sweep is what finds its leftovers.
 */
export function joiningArgs(shell: string, command: string, cgroup: ExecCgroup): string[] {
  return [
    '-c',
    '{ echo $$ >"$1"; } 2>/dev/null; exec "$2" -c "$0"',
    command,
    `${cgroup.dir}/cgroup.procs`,
    shell,
  ];
}

async function members(cgroup: ExecCgroup): Promise<number[]> {
  const text = await readFile(`${cgroup.dir}/cgroup.procs`, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

async function inGroup(pid: number, group: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat !== null && parseStat(stat)?.pgid === group;
}

/**
 * Ends everything left in the sub-group (SIGTERM, then SIGKILL after the grace) and removes it. Members of
 * `uncountedGroup` (the command's own group, already killed by a timeout) are ended but not counted.
 */
export async function endExecCgroup(
  cgroup: ExecCgroup,
  graceMs: number,
  uncountedGroup: number | null = null,
): Promise<Leftovers> {
  const found = await members(cgroup);
  let counted = found.length;
  if (uncountedGroup !== null) {
    const dying = await Promise.all(found.map((pid) => inGroup(pid, uncountedGroup)));
    counted = dying.filter((d) => !d).length;
  }
  let remaining = found;
  if (found.length > 0) {
    for (const pid of found) signal(pid, 'SIGTERM');
    const deadline = performance.now() + graceMs;
    while (remaining.length > 0 && performance.now() < deadline) {
      await sleep(25);
      remaining = await members(cgroup);
    }
    if (remaining.length > 0) {
      // cgroup.kill (Linux 5.14) kills what forks meanwhile too; older kernels get one SIGKILL each.
      await writeFile(`${cgroup.dir}/cgroup.kill`, '1').catch(() => {
        for (const pid of remaining) signal(pid, 'SIGKILL');
      });
      for (let i = 0; i < 40 && remaining.length > 0; i++) {
        await sleep(25);
        remaining = await members(cgroup);
      }
    }
  }
  await rmdir(cgroup.dir).catch(() => undefined);
  return { count: counted, killed: remaining.length === 0 };
}
