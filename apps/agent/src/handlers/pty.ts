/**
 * The `pty` stream kind (decision 0029): a pseudo-terminal running the agent user's login shell (or the shell
 * the settings name, decision 0064), through
 * util-linux `script` (no native module in the bundle). `script -qfe -c <cmd> /dev/null` allocates the PTY
 * and copies it to our pipes; its exit code is the shell's. The size is set by `stty` before the shell
 * starts, and changed with `stty -F <pts>` on the shell's terminal (the kernel then signals SIGWINCH).
 * Linux only; elsewhere the open is answered `unsupported`.
 */
import { spawn } from 'node:child_process';
import { readFile, readlink } from 'node:fs/promises';
import os from 'node:os';
import { AgentError } from './agent-error.js';
import type { OpenedSource, SourceSink, StreamOpeners } from '../channel/streams.js';
import type { RunCommand } from '../platform/run-command.js';

export interface PtyOptions {
  nodePlatform: NodeJS.Platform;
  runCommand: RunCommand;
  /** The shell; the agent user's own login shell by default. */
  shell?: string;
  /** Start it as a login shell (`-l`), as a terminal login does; true by default. */
  loginShell?: boolean;
  /** Where the shell starts; the user's home by default. */
  cwd?: string;
  /** The environment the shell starts with (before SHELL and TERM); the agent's own by default. */
  env?: NodeJS.ProcessEnv;
  scriptPath?: string;
}

/** The agent user's login shell: from the password database, then $SHELL, then /bin/sh. */
function loginShell(env: NodeJS.ProcessEnv = process.env): string {
  let shell: string;
  try {
    shell = os.userInfo().shell ?? '';
  } catch {
    shell = '';
  }
  if (!shell || shell.endsWith('/nologin') || shell.endsWith('/false')) shell = env.SHELL ?? '';
  return shell.startsWith('/') ? shell : '/bin/sh';
}

/** Single-quoted for /bin/sh. */
function quote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/** The terminal the shell runs on: script's child's stdin, e.g. /dev/pts/3. */
async function findPts(scriptPid: number): Promise<string | null> {
  try {
    const children = await readFile(`/proc/${scriptPid}/task/${scriptPid}/children`, 'utf8');
    const child = children.trim().split(/\s+/)[0];
    if (!child) return null;
    const target = await readlink(`/proc/${child}/fd/0`);
    return /^\/dev\/pts\/\d+$/.test(target) ? target : null;
  } catch {
    return null;
  }
}

export function createPtyOpeners(options: PtyOptions): StreamOpeners {
  return {
    pty: {
      open(params, sink: SourceSink) {
        if (options.nodePlatform !== 'linux')
          return Promise.reject(
            new AgentError('unsupported', `terminals are not supported on ${options.nodePlatform}`),
          );
        const shell = options.shell ?? loginShell();
        const login = options.loginShell === false ? '' : ' -l';
        const command = `stty cols ${params.cols} rows ${params.rows} 2>/dev/null; exec ${quote(shell)}${login}`;
        const child = spawn(options.scriptPath ?? 'script', ['-q', '-f', '-e', '-c', command, '/dev/null'], {
          cwd: options.cwd ?? os.homedir(),
          env: {
            ...(options.env ?? process.env),
            SHELL: shell,
            TERM: 'xterm-256color',
            COLORTERM: 'truecolor',
          },
          stdio: ['pipe', 'pipe', 'pipe'],
          detached: true,
        });
        return new Promise((resolve, reject) => {
          let pts: string | null = null;
          let ended = false;
          let size = { cols: params.cols, rows: params.rows };
          let resizing = false;
          let killTimer: NodeJS.Timeout | undefined;
          child.once('error', (error: NodeJS.ErrnoException) => {
            if (error.code === 'ENOENT')
              reject(new AgentError('unsupported', 'util-linux script is not installed'));
            else reject(new AgentError('failed', `cannot start a terminal: ${error.message}`));
          });
          child.stdout.on('data', (chunk: Buffer) => {
            sink.output(chunk);
          });
          // script writes its own complaints to stderr: shown in the terminal like the shell's.
          child.stderr.on('data', (chunk: Buffer) => {
            sink.output(chunk);
          });
          child.stdin.on('error', () => undefined);
          child.once('close', (code, signal) => {
            clearTimeout(killTimer);
            if (ended) return;
            ended = true;
            sink.end('the shell exited', { code, signal });
          });
          const applySize = async (): Promise<void> => {
            if (resizing || ended) return;
            resizing = true;
            try {
              pts ??= child.pid ? await findPts(child.pid) : null;
              if (pts) {
                const wanted = size;
                await options.runCommand(
                  'stty',
                  ['-F', pts, 'cols', String(wanted.cols), 'rows', String(wanted.rows)],
                  {
                    timeoutMs: 5_000,
                  },
                );
                if (wanted !== size) {
                  resizing = false;
                  await applySize();
                  return;
                }
              }
            } catch {
              // The shell may have gone; its close follows.
            }
            resizing = false;
          };
          const source: OpenedSource = {
            write(chunk, done) {
              if (ended || !child.stdin.writable) {
                done();
                return;
              }
              child.stdin.write(chunk, () => {
                done();
              });
            },
            resize(cols, rows) {
              size = { cols, rows };
              void applySize();
            },
            pause() {
              child.stdout.pause();
              child.stderr.pause();
            },
            resume() {
              child.stdout.resume();
              child.stderr.resume();
            },
            close() {
              ended = true;
              child.stdin.end();
              const kill = (signal: NodeJS.Signals) => {
                try {
                  if (child.pid) process.kill(-child.pid, signal);
                } catch {
                  // Already gone.
                }
              };
              // script ends on SIGHUP and closes the terminal, which hangs up the shell.
              kill('SIGHUP');
              child.stdout.resume();
              child.stderr.resume();
              killTimer = setTimeout(() => {
                kill('SIGKILL');
              }, 2_000);
              killTimer.unref();
            },
          };
          child.once('spawn', () => {
            resolve({ info: { shell, pid: child.pid ?? 0 }, source });
          });
        });
      },
    },
  };
}
