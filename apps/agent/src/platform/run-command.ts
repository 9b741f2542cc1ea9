/**
 * Runs a program with an argument vector, never through a shell (exec.run is the only place with a shell).
 * Output is read in the C locale so parsers see stable text.
 */
import { AgentError } from '../handlers/agent-error.js';

/**
 * node:child_process, loaded by the first command rather than by the start: the idle agent runs none, and the
 * module brings net's process plumbing and dgram with it (decision 0099). `require`, not the ES loader
 * (decision 0085).
 */
const childProcess = () => process.getBuiltinModule('node:child_process');

interface CommandResult {
  /** Exit code; null when killed by a signal. */
  code: number | null;
  stdout: string;
  stderr: string;
}

interface RunOptions {
  timeoutMs?: number;
  maxBufferBytes?: number;
}

export type RunCommand = (
  file: string,
  args: readonly string[],
  options?: RunOptions,
) => Promise<CommandResult>;

/** The program is not installed (ENOENT when spawning it). */
export class CommandMissingError extends Error {
  constructor(readonly file: string) {
    super(`${file} is not installed`);
    this.name = 'CommandMissingError';
  }
}

export const runCommand: RunCommand = (file, args, options = {}) =>
  new Promise((resolve, reject) => {
    childProcess().execFile(
      file,
      [...args],
      {
        encoding: 'utf8',
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: options.maxBufferBytes ?? 32 * 1024 * 1024,
        env: { ...process.env, LC_ALL: 'C', SYSTEMD_COLORS: '0', SYSTEMD_PAGER: '' },
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (!error) {
          resolve({ code: 0, stdout, stderr });
          return;
        }
        const failure = error as NodeJS.ErrnoException & {
          code?: string | number;
          killed?: boolean;
          signal?: string | null;
        };
        if (failure.code === 'ENOENT') {
          reject(new CommandMissingError(file));
        } else if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
          reject(new AgentError('too_large', `${file} produced more output than the agent accepts`));
        } else if (failure.killed) {
          reject(new AgentError('timeout', `${file} did not finish in time`));
        } else if (typeof failure.code === 'number') {
          resolve({ code: failure.code, stdout, stderr });
        } else if (failure.signal) {
          resolve({ code: null, stdout, stderr });
        } else {
          reject(new AgentError('failed', `${file}: ${failure.message}`));
        }
      },
    );
  });

interface BoundedRunOptions {
  /** The whole environment of the program (nothing inherited): what its output is parsed under. */
  env: Readonly<Record<string, string>>;
  timeoutMs: number;
  /** After the timeout's SIGTERM to the program's process group, how long before SIGKILL. */
  killGraceMs?: number;
  /** stdout kept whole for parsing up to this size; past it the run's `stdoutTruncated` is set. */
  maxStdoutBytes?: number;
  /** The tail of stdout and stderr interleaved, as a person reads it, kept up to this size. */
  maxOutputBytes: number;
}

export interface BoundedRunResult {
  /** Exit code; null when ended by a signal (a timeout's included). */
  code: number | null;
  timedOut: boolean;
  stdout: string;
  stdoutTruncated: boolean;
  /** The end of the interleaved output, at most maxOutputBytes of UTF-8. */
  output: string;
  outputTruncated: boolean;
  durationMs: number;
}

export type RunBounded = (
  file: string,
  args: readonly string[],
  options: BoundedRunOptions,
) => Promise<BoundedRunResult>;

/** Keeps the last `max` bytes of what is pushed: the end of a long run is what says how it ended. */
export class TailBuffer {
  private chunks: Buffer[] = [];
  private size = 0;
  truncated = false;

  constructor(private readonly max: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.max) {
      const first = this.chunks[0];
      if (!first) break;
      const excess = this.size - this.max;
      this.truncated = true;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  /** The kept bytes as text; a character cut at the start is dropped rather than shown broken. */
  text(): string {
    const bytes = Buffer.concat(this.chunks);
    let start = 0;
    // Skip UTF-8 continuation bytes (10xxxxxx) left by the cut.
    if (this.truncated) while (start < bytes.length && ((bytes[start] ?? 0) & 0xc0) === 0x80) start += 1;
    return bytes.subarray(start).toString('utf8');
  }
}

/**
 * Runs a program (argv, never a shell) in a process group of its own, with exactly `env`, bounded in time and
 * output: at the timeout its whole group gets SIGTERM, then SIGKILL after the grace (a package manager's
 * children, dpkg and its maintainer scripts, go with it). A timeout is a result (`timedOut`), not an error;
 * a program that is not installed is CommandMissingError.
 */
export const runBounded: RunBounded = (file, args, options) =>
  new Promise((resolve, reject) => {
    const started = performance.now();
    const maxStdout = options.maxStdoutBytes ?? 32 * 1024 * 1024;
    const stdout: Buffer[] = [];
    let stdoutSize = 0;
    let stdoutTruncated = false;
    const tail = new TailBuffer(options.maxOutputBytes);
    const child = childProcess().spawn(file, [...args], {
      env: { ...options.env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const pid = child.pid;
    const timer = setTimeout(() => {
      timedOut = true;
      if (pid === undefined) return;
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => {
        signalGroup(pid, 'SIGKILL');
      }, options.killGraceMs ?? 10_000);
    }, options.timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => {
      tail.push(chunk);
      const room = maxStdout - stdoutSize;
      if (chunk.length > room) stdoutTruncated = true;
      if (room > 0) {
        const part = chunk.length > room ? chunk.subarray(0, room) : chunk;
        stdout.push(part);
        stdoutSize += part.length;
      }
    });
    child.stderr.on('data', (chunk: Buffer) => {
      tail.push(chunk);
    });
    child.once('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      clearTimeout(killTimer);
      reject(error.code === 'ENOENT' ? new CommandMissingError(file) : error);
    });
    let settled = false;
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(killTimer);
      // Whatever of its group outlived it after a timeout goes too.
      if (timedOut && pid !== undefined) signalGroup(pid, 'SIGKILL');
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        code: timedOut ? null : code,
        timedOut,
        stdout: Buffer.concat(stdout).toString('utf8'),
        stdoutTruncated,
        output: tail.text(),
        outputTruncated: tail.truncated,
        durationMs: Math.round(performance.now() - started),
      });
    };
    child.once('close', (code) => {
      finish(code);
    });
    // A daemon restarted by a maintainer script may keep the pipes open after the manager exited: its output
    // is read for a moment more, then the run is over.
    child.once('exit', (code) => {
      setTimeout(() => {
        finish(code);
      }, 1_000).unref();
    });
  });

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}
