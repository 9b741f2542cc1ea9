/**
 * A nats-server of a test's own (from the Debian package) on a free loopback port with a temp store dir, so the
 * test can stop and restart it without touching the shared one on 4222.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

const natsServerBinary = '/usr/sbin/nats-server';

export interface TestNatsServer {
  url: string;
  port: number;
  /** Stops the server and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port. */
  start(): Promise<void>;
  /** Stops it and removes its dir. */
  dispose(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => {
      resolve(false);
    });
  });
}

/** Polls until `check` holds: at most `attempts` times, `intervalMs` apart. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  what: string,
  attempts = 100,
  intervalMs = 50,
): Promise<void> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  throw new Error(`gave up waiting: ${what}`);
}

/** @param options.maxPayload the server's max_payload in bytes (1 MiB when absent), set through a config file */
export async function startTestNatsServer(options: { maxPayload?: number } = {}): Promise<TestNatsServer> {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-nats-'));
  const args = ['-a', '127.0.0.1', '-p', String(port), '-sd', dir];
  if (options.maxPayload !== undefined) {
    const config = path.join(dir, 'nats.conf');
    fs.writeFileSync(config, `max_payload: ${Math.floor(options.maxPayload)}\n`);
    args.push('-c', config);
  }
  let child: ChildProcess | null = null;

  async function start(): Promise<void> {
    const started = spawn(natsServerBinary, args, { stdio: 'ignore' });
    child = started;
    await waitUntil(() => canConnect(port), `nats-server on ${port}`);
  }

  async function stop(): Promise<void> {
    const running = child;
    child = null;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGTERM');
    await exited;
  }

  await start();
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    start,
    stop,
    async dispose() {
      await stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
