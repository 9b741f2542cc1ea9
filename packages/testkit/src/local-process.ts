/**
 * What every test server the testkit spawns needs (HAProxy, hub processes, nats-server, Xtigervnc): a free
 * loopback port, a bounded wait until something listens on it, and a child process whose end is awaited and
 * whose output is kept for the error a test shows when the server does not come up.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import net from 'node:net';

/**
 * Where test servers listen: below Linux's ephemeral range (32768–60999 by default). A port the kernel hands
 * out for `listen(0)` is one it also hands to outgoing connections, so between the pick and the server's bind
 * a browser's or an agent's socket could take it (a CI run failed so: EADDRINUSE on a picked port).
 */
const testPorts = { low: 20_000, high: 32_000 } as const;
const handedOut = new Set<number>();

/** Whether something can listen on 127.0.0.1:`port` right now. */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => {
      resolve(false);
    });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => {
      server.close(() => {
        resolve(true);
      });
    });
  });
}

/**
 * A port on 127.0.0.1 no one listens on now, never one this process handed out before, and outside the range
 * outgoing connections take their ports from. Another test process may still pick the same one: the range is
 * wide and the pick random, so two picking it at once is rare, not impossible.
 */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    const port = testPorts.low + Math.floor(Math.random() * (testPorts.high - testPorts.low));
    if (handedOut.has(port)) continue;
    handedOut.add(port);
    if (await canListen(port)) return port;
  }
  throw new Error(`no free port between ${testPorts.low} and ${testPorts.high} on 127.0.0.1`);
}

/** Whether 127.0.0.1:`port` accepts a TCP connection within `timeoutMs`. */
function canConnect(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(timeoutMs);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

export interface LocalProcess {
  readonly child: ChildProcess;
  /** Resolves when the process has exited. */
  readonly exited: Promise<void>;
  /** True once the process has exited. */
  ended: () => boolean;
  /** The last of its stdout and stderr (empty when its output goes elsewhere). */
  output: () => string;
  /** Sends `signal` (SIGTERM by default), SIGKILL after `graceMs`, and waits until it has exited. */
  stop: (signal?: NodeJS.Signals, graceMs?: number) => Promise<void>;
}

export interface LocalProcessOptions extends Omit<SpawnOptions, 'stdio'> {
  /** Keep this many bytes of stdout and stderr (0: discard them); default 64 KiB. */
  keepOutput?: number;
  /** stdout and stderr go here instead (a log file's descriptor); `output()` is then empty. */
  outputFd?: number;
}

/** Spawns `command` with stdin closed and keeps the tail of its output. */
export function spawnLocal(
  command: string,
  args: readonly string[],
  options: LocalProcessOptions = {},
): LocalProcess {
  const { keepOutput = 64 * 1024, outputFd, ...spawnOptions } = options;
  const out = outputFd ?? (keepOutput > 0 ? 'pipe' : 'ignore');
  const child = spawn(command, args, { ...spawnOptions, stdio: ['ignore', out, out] });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-keepOutput);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  let done = false;
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      done = true;
      resolve();
    });
  });
  return {
    child,
    exited,
    ended: () => done,
    output: () => log,
    async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 5_000) {
      if (done) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until `process` listens on 127.0.0.1:`port`, polling every `intervalMs`. Throws, with the end of its
 * output, when it exits first or `timeoutMs` passes (the process is left running: the caller stops it).
 */
export async function waitListening(
  process: Pick<LocalProcess, 'ended' | 'output'>,
  port: number,
  what: string,
  { timeoutMs = 10_000, intervalMs = 50 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 10_000; attempt++) {
    if (process.ended()) throw new Error(`${what} ended:\n${process.output().slice(-3000)}`);
    if (await canConnect(port)) return;
    if (Date.now() > deadline) break;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(
    `${what} did not listen on ${String(port)} in ${String(timeoutMs)} ms:\n${process.output().slice(-3000)}`,
  );
}
