/**
 * Runs a program with an argument vector, never through a shell (exec.run is the only place with a shell).
 * Output is read in the C locale so parsers see stable text.
 */
import { execFile } from 'node:child_process';
import { AgentError } from '../handlers/agent-error.js';

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
    execFile(
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
