/**
 * Terminals for the sessions benchmark, one interface for both ends compared: a hub session attached over
 * its WebSocket (through the hub and a real agent's PTY), and a direct local PTY started the way the agent
 * starts one (util-linux `script`, decision 0029). Output is counted and its last bytes kept, so a test can
 * wait for a needle (an echo, a marker) with a deadline.
 */
import { spawn } from 'node:child_process';
import os from 'node:os';
import { WebSocket } from 'ws';
import type { JsonClient } from './https-json.js';

/** Bytes of output kept for matching needles: needles are short, output may be megabytes. */
const tailBytes = 64;

export interface Terminal {
  /** Output bytes received so far. */
  readonly received: () => number;
  write(text: string): void;
  /** Forgets the output seen so far, so the next waitFor only matches what comes after. */
  mark(): void;
  /** Resolves with performance.now() when `needle` shows in the output after the last mark. */
  waitFor(needle: string, timeoutMs: number): Promise<number>;
  close(): Promise<void>;
}

interface Waiter {
  needle: string;
  resolve: (at: number) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

/** The output side shared by both terminals. */
class OutputTap {
  received = 0;
  private tail = '';
  private waiters: Waiter[] = [];

  push(chunk: Buffer): void {
    const at = performance.now();
    this.received += chunk.length;
    this.tail = (this.tail + chunk.subarray(-tailBytes).toString('latin1')).slice(-tailBytes);
    if (this.waiters.length === 0) return;
    const waiting = this.waiters;
    this.waiters = [];
    for (const w of waiting) {
      if (this.tail.includes(w.needle)) {
        clearTimeout(w.timer);
        w.resolve(at);
      } else this.waiters.push(w);
    }
  }

  mark(): void {
    this.tail = '';
  }

  waitFor(needle: string, timeoutMs: number, label: string): Promise<number> {
    if (this.tail.includes(needle)) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        needle,
        resolve,
        reject,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          reject(new Error(`${label}: ${JSON.stringify(needle)} not seen within ${timeoutMs} ms`));
        }, timeoutMs),
      };
      this.waiters.push(waiter);
    });
  }

  fail(error: Error): void {
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.reject(error);
    }
    this.waiters = [];
  }
}

/**
 * A PTY on this machine, started like the agent's (`script -q -f -e -c "stty …; exec <shell>"`) with the shell
 * the bench gives its agents (`SVC_AGENT_SHELL`, not a login shell unless `SVC_AGENT_SHELL_LOGIN` is true).
 */
export function openLocalPty(
  terminal: { SVC_AGENT_SHELL: string; SVC_AGENT_SHELL_LOGIN: string },
  cols = 80,
  rows = 24,
): Terminal {
  const shell = terminal.SVC_AGENT_SHELL;
  const login = terminal.SVC_AGENT_SHELL_LOGIN === 'true' ? ' -l' : '';
  const child = spawn(
    'script',
    [
      '-q',
      '-f',
      '-e',
      '-c',
      `stty cols ${cols} rows ${rows} 2>/dev/null; exec '${shell}'${login}`,
      '/dev/null',
    ],
    {
      cwd: os.homedir(),
      env: { ...process.env, SHELL: shell, TERM: 'xterm-256color', COLORTERM: 'truecolor' },
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    },
  );
  const tap = new OutputTap();
  child.stdout.on('data', (chunk: Buffer) => {
    tap.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    tap.push(chunk);
  });
  child.once('exit', () => {
    tap.fail(new Error('the local PTY exited'));
  });
  return {
    received: () => tap.received,
    write: (text) => child.stdin.write(text),
    mark: () => {
      tap.mark();
    },
    waitFor: (needle, timeoutMs) => tap.waitFor(needle, timeoutMs, 'local PTY'),
    close: () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null || !child.pid) {
          done();
          return;
        }
        const pid = child.pid;
        child.once('exit', () => {
          done();
        });
        try {
          process.kill(-pid, 'SIGHUP');
        } catch {
          done();
        }
        setTimeout(() => {
          try {
            process.kill(-pid, 'SIGKILL');
          } catch {
            // already gone
          }
        }, 2000).unref();
      }),
  };
}

export interface HubTarget {
  origin: string;
  ca: string;
  http: JsonClient;
}

/** Opens a terminal session on `assetId` as `key` (POST /assets/{id}/sessions) and attaches to it. */
export async function openHubTerminal(
  hub: HubTarget,
  key: string,
  assetId: string,
  cols = 80,
  rows = 24,
): Promise<Terminal> {
  const headers = { authorization: `Bearer ${key}` };
  const created = await hub.http.request(
    'POST',
    `${hub.origin}/api/v2/assets/${encodeURIComponent(assetId)}/sessions`,
    { body: { kind: 'terminal', cols, rows }, headers, timeoutMs: 30_000 },
  );
  if (created.status !== 201) throw new Error(`session create: ${created.status} ${created.text}`);
  const id = (JSON.parse(created.text) as { data: { id: string } }).data.id;
  const wsUrl = `${hub.origin.replace(/^http/, 'ws')}/api/v2/sessions/${encodeURIComponent(id)}/attach`;
  const ws = new WebSocket(wsUrl, { headers, ca: hub.ca });
  const tap = new OutputTap();
  ws.on('message', (data: Buffer, isBinary) => {
    if (isBinary) tap.push(data);
  });
  const closed = new Promise<void>((done) => {
    ws.once('close', (code, reason) => {
      tap.fail(new Error(`session ${id} closed: ${code} ${reason.toString()}`));
      done();
    });
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => {
      resolve();
    });
    ws.once('unexpected-response', (_req, res) => {
      reject(new Error(`attach ${id}: HTTP ${res.statusCode ?? 0}`));
    });
    ws.once('error', reject);
  });
  return {
    received: () => tap.received,
    write: (text) => {
      ws.send(Buffer.from(text, 'utf8'), { binary: true });
    },
    mark: () => {
      tap.mark();
    },
    waitFor: (needle, timeoutMs) => tap.waitFor(needle, timeoutMs, `session ${id}`),
    close: async () => {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'close' }));
      const timer = setTimeout(() => {
        ws.terminate();
      }, 5000);
      await closed;
      clearTimeout(timer);
    },
  };
}

/** Waits until the shell runs commands: `echo READY$((6*7))` answers READY42 (the typed echo does not). */
export async function whenReady(term: Terminal, timeoutMs: number): Promise<void> {
  term.mark();
  term.write('echo READY$((6*7))\r');
  await term.waitFor('READY42', timeoutMs);
  // The prompt that follows lands before the first timed keystroke's mark.
  await new Promise((r) => setTimeout(r, 300));
}

/** One keystroke's round trip: type `x`, see its echo; then erase it (not timed) so the line stays short. */
export async function keystroke(term: Terminal, timeoutMs: number): Promise<number> {
  term.mark();
  const started = performance.now();
  term.write('x');
  const seen = await term.waitFor('x', timeoutMs);
  term.mark();
  term.write('\x7f');
  await term.waitFor('\b', timeoutMs);
  return seen - started;
}

/** Output throughput: `head -c <bytes> /dev/zero | base64`, timed from the Enter to the end marker. */
export async function throughput(
  term: Terminal,
  rawBytes: number,
  timeoutMs: number,
): Promise<{ bytes: number; seconds: number }> {
  term.mark();
  const before = term.received();
  const started = performance.now();
  term.write(`head -c ${rawBytes} /dev/zero | base64; echo END$((6*7))\r`);
  const ended = await term.waitFor('END42', timeoutMs);
  return { bytes: term.received() - before, seconds: (ended - started) / 1000 };
}
