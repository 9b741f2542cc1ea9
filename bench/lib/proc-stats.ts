/** What a process costs, from /proc (Linux): CPU time in clock ticks and resident memory; and node children. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { repoRoot } from './report.js';

/** Clock ticks per second of /proc/<pid>/stat (getconf CLK_TCK; 100 on Linux unless told otherwise). */
const clockTicks = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in seconds. */
export function cpuSecondsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses: count fields after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  return (utime + stime) / clockTicks;
}

/** VmRSS of a process, in bytes. */
export function rssBytesOf(pid: number): number {
  const kb = /VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return kb ? Number(kb) * 1024 : 0;
}

export interface NodeChild {
  process: ChildProcess;
  pid: number;
  output(): string;
  stop(): Promise<void>;
}

/** Runs `node <args>` from the repository root; resolves once `readyText` shows in its output. */
export function spawnNode(
  args: string[],
  env: Record<string, string>,
  readyText: string | null,
  timeoutMs = 60_000,
  /** How long `stop` waits after SIGTERM before SIGKILL (a process writing a CPU profile needs longer). */
  killAfterMs = 5000,
): Promise<NodeChild> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let settled = false;
    const handle: NodeChild = {
      process: child,
      pid: child.pid ?? 0,
      output: () => out,
      stop: () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null || child.signalCode !== null) {
            done();
            return;
          }
          child.once('exit', () => {
            done();
          });
          child.kill('SIGTERM');
          setTimeout(() => child.kill('SIGKILL'), killAfterMs).unref();
        }),
    };
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      child.kill('SIGKILL');
      reject(new Error(`node ${args.join(' ')} was not ready in ${timeoutMs} ms:\n${out.slice(-2000)}`));
    }, timeoutMs);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 1_000_000) out = out.slice(-500_000);
      if (!settled && readyText !== null && out.includes(readyText)) {
        settled = true;
        clearTimeout(timer);
        resolve(handle);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      reject(new Error(`node ${args.join(' ')} exited with ${code}:\n${out.slice(-2000)}`));
    });
    if (readyText === null) {
      child.once('spawn', () => {
        settled = true;
        clearTimeout(timer);
        resolve(handle);
      });
    }
  });
}
