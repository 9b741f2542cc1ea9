/**
 * exec.run: runs a command with `/bin/sh -c`. By design this is the only place in the agent that uses a
 * shell. The command runs in its own process group so a timeout kills everything it started, each output
 * stream is capped and flagged when cut, and a timeout is a result (timed_out), not an error. When the
 * command has ended (exit or timeout), whatever it left running is ended too and counted in `left_running`
 * (see exec-leftovers.ts): an exec is a one-shot, not a way to start daemons.
 */
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { AgentRequestPayload, AgentRequestResult } from '@svc/protocol';
import { AgentError } from './agent-error.js';
import { createExecCgroup, endExecCgroup, joiningArgs } from './exec-cgroup.js';
import { execMarkerVariable, sweepLeftovers, type Leftovers } from './exec-leftovers.js';
import { killGroup, type RunningCommands } from './running-commands.js';

export interface ExecOptions {
  shell?: string;
  /** Working directory of the command. */
  cwd?: string;
  /** After a timeout's SIGTERM, how long the group gets before SIGKILL. */
  killGraceMs?: number;
  /**
   * After the shell exits, how long to wait for the output pipes to close. A command that leaves a
   * background child holding them open would otherwise look like it never ended.
   */
  drainMs?: number;
  /** Where running commands are registered, so stopping the agent can end them. */
  running?: RunningCommands;
  /** Where procfs is mounted, to find what a command left running; tests point elsewhere. */
  procRoot?: string;
  /** The cgroup v2 directory under which each exec gets a sub-group; null for none; detected by default. */
  cgroupRoot?: string | null;
}

class CappedBuffer {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    const room = this.max - this.size;
    if (chunk.length > room) this.truncated = true;
    if (room <= 0) return;
    const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
    this.chunks.push(part);
    this.size += part.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** Both ways of finding leftovers together; null when neither could look. */
function combine(a: Leftovers | null, b: Leftovers | null): Leftovers | null {
  if (!a || !b) return a ?? b;
  return { count: a.count + b.count, killed: a.killed && b.killed };
}

export async function runExec(
  payload: AgentRequestPayload<'exec.run'>,
  options: ExecOptions = {},
): Promise<AgentRequestResult<'exec.run'>> {
  const shell = options.shell ?? '/bin/sh';
  const killGraceMs = options.killGraceMs ?? 2_000;
  const drainMs = options.drainMs ?? 500;
  const started = performance.now();
  const marker = randomUUID();
  const cgroup = await createExecCgroup(marker, options.cgroupRoot);

  return new Promise((resolve, reject) => {
    const args = cgroup ? joiningArgs(shell, payload.command, cgroup) : ['-c', payload.command];
    const child = spawn(shell, args, {
      cwd: options.cwd ?? '/',
      detached: true, // a new process group, killed as a whole on timeout
      stdio: ['ignore', 'pipe', 'pipe'],
      // Inherited by everything the command starts, even what leaves the group: how leftovers are found.
      env: { ...process.env, [execMarkerVariable]: marker },
      windowsHide: true,
    });
    const pid = child.pid;
    if (pid !== undefined) options.running?.add(pid);
    const stdout = new CappedBuffer(payload.max_output_bytes);
    const stderr = new CappedBuffer(payload.max_output_bytes);
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr.push(chunk);
    });

    let timedOut = false;
    let exit: { code: number | null; signal: NodeJS.Signals | null } | null = null;
    let settled = false;
    let killTimer: NodeJS.Timeout | undefined;
    let drainTimer: NodeJS.Timeout | undefined;

    const timeoutTimer = setTimeout(() => {
      if (child.pid === undefined) return;
      timedOut = true;
      const pid = child.pid;
      killGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        killGroup(pid, 'SIGKILL');
      }, killGraceMs);
    }, payload.timeout_ms);

    const finish = async (ended: { code: number | null; signal: NodeJS.Signals | null }) => {
      clearTimeout(timeoutTimer);
      clearTimeout(drainTimer);
      // On a timeout, leave nothing of the group behind.
      if (timedOut && pid !== undefined) killGroup(pid, 'SIGKILL');
      clearTimeout(killTimer);
      child.stdout.destroy();
      child.stderr.destroy();
      const durationMs = Math.max(0, Math.round(performance.now() - started));
      // The sub-group holds everything the command started; the sweep finds what joined none.
      const dying = timedOut && pid !== undefined ? pid : null;
      const contained = cgroup ? await endExecCgroup(cgroup, killGraceMs, dying).catch(() => null) : null;
      const swept =
        pid === undefined
          ? null
          : await sweepLeftovers({
              marker,
              leaderPid: pid,
              graceMs: killGraceMs,
              uncountedGroup: dying,
              ...(options.procRoot ? { procRoot: options.procRoot } : {}),
            }).catch(() => null);
      const left = combine(contained, swept);
      // Without procfs or a cgroup the group is all there is to go by: its background jobs end with the command.
      if (left === null && pid !== undefined) killGroup(pid, 'SIGKILL');
      if (pid !== undefined) options.running?.delete(pid);
      resolve({
        exit_code: ended.code,
        signal: ended.signal,
        stdout: stdout.text(),
        stderr: stderr.text(),
        truncated: stdout.truncated || stderr.truncated,
        timed_out: timedOut,
        duration_ms: durationMs,
        ...(left && left.count > 0 ? { left_running: left } : {}),
      });
    };
    const settle = () => {
      if (settled || !exit) return;
      settled = true;
      void finish(exit);
    };

    child.on('error', (error) => {
      if (settled) return;
      settled = true;
      if (pid !== undefined) options.running?.delete(pid);
      clearTimeout(timeoutTimer);
      clearTimeout(killTimer);
      if (cgroup) void endExecCgroup(cgroup, 0).catch(() => undefined);
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      reject(new AgentError(missing ? 'unsupported' : 'failed', `cannot run ${shell}: ${error.message}`));
    });
    child.on('exit', (code, signal) => {
      exit = { code, signal };
      drainTimer = setTimeout(settle, drainMs);
    });
    child.on('close', () => {
      settle();
    });
  });
}
