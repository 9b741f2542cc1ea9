/** Child processes for benchmarks: a hub on its own data directory, waited for, always stopped. */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './report.js';

export { freePort } from '@svc/testkit';

export interface Child {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Runs a TypeScript entry with tsx; resolves once `readyText` appears in its output (or rejects on exit). */
export function startTs(
  entry: string,
  env: Record<string, string>,
  readyText: string | RegExp,
  timeoutMs = 60_000,
  nodeArgs: readonly string[] = [],
  /** How long `stop` waits after SIGTERM before SIGKILL (a process writing a CPU profile needs longer). */
  killAfterMs = 5000,
): Promise<Child> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(repoRoot, entry)], {
      cwd: repoRoot,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const ready =
      typeof readyText === 'string' ? (s: string) => s.includes(readyText) : (s: string) => readyText.test(s);
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${entry} was not ready in ${timeoutMs} ms:\n${out.slice(-2000)}`));
    }, timeoutMs);
    const handle: Child = {
      process: child,
      output: () => out,
      stop: () =>
        new Promise<void>((done) => {
          if (child.exitCode !== null) {
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
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      if (out.length > 1_000_000) out = out.slice(-500_000);
      if (ready(out)) {
        clearTimeout(timer);
        resolve(handle);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${entry} exited with ${code}:\n${out.slice(-2000)}`));
    });
  });
}

/** RSS of a process in bytes, from /proc. */
export function rssOf(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = /VmRSS:\s+(\d+)/.exec(status)?.[1];
  return kb ? Number(kb) * 1024 : 0;
}
