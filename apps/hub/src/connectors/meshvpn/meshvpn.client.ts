/**
 * The local `tailscale` CLI, run by argv (no shell), with a timeout and bounded output. The binary is
 * configurable (SVC_TAILSCALE_BIN) so tests point it at a fake script. A failure is a value, not a throw.
 */
import { execFile } from 'node:child_process';

interface CliOutcome {
  kind: 'ok' | 'not_found' | 'failed' | 'timeout' | 'too_large';
  stdout: string;
  /** The first line of what the CLI said on stderr (or the spawn error), bounded. */
  detail: string;
}

export interface TailscaleCli {
  status(): Promise<CliOutcome>;
  serveStatus(): Promise<CliOutcome>;
}

export interface TailscaleCliOptions {
  binary: string;
  timeoutMs?: number;
  maxOutputBytes?: number;
}

const detailLength = 300;

function firstLine(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return line.trim().slice(0, detailLength);
}

export function createTailscaleCli(options: TailscaleCliOptions): TailscaleCli {
  const timeout = options.timeoutMs ?? 5_000;
  const maxBuffer = options.maxOutputBytes ?? 1_048_576;
  const run = (args: string[]) =>
    new Promise<CliOutcome>((resolve) => {
      execFile(
        options.binary,
        args,
        { timeout, maxBuffer, shell: false, windowsHide: true, encoding: 'utf8', killSignal: 'SIGKILL' },
        (error, stdout, stderr) => {
          if (!error) {
            resolve({ kind: 'ok', stdout, detail: '' });
            return;
          }
          const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
          if (failure.code === 'ENOENT') {
            resolve({ kind: 'not_found', stdout: '', detail: `${options.binary} not found` });
          } else if (failure.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
            resolve({ kind: 'too_large', stdout: '', detail: `output over ${String(maxBuffer)} bytes` });
          } else if (failure.killed === true) {
            resolve({ kind: 'timeout', stdout: '', detail: `no answer within ${String(timeout)} ms` });
          } else {
            resolve({ kind: 'failed', stdout, detail: firstLine(stderr) || firstLine(failure.message) });
          }
        },
      );
    });
  return {
    // Peers make the output large and say nothing about this host.
    status: () => run(['status', '--json', '--peers=false']),
    serveStatus: () => run(['serve', 'status', '--json']),
  };
}
