/**
 * Debian's HAProxy (/usr/sbin/haproxy) in the foreground on loopback, running the deployment's own
 * configuration (deploy/haproxy/haproxy.cfg) with its addresses and files given through the environment it
 * reads. For tests of hub processes behind a load balancer (decision 0041).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const haproxyBinary = '/usr/sbin/haproxy';
export const haproxyConfig = path.join(repoRoot, 'deploy/haproxy/haproxy.cfg');

export interface HaproxyOptions {
  /** The three backends, `host:port` (HTTPS). */
  backends: readonly [string, string, string];
  /** The hubs' CA certificate file (HAProxy verifies the backends with it). */
  backendCaFile: string;
  /** What HAProxy serves: one PEM file, the certificate chain then its key. */
  certificateFile: string;
}

export interface RunningHaproxy {
  port: number;
  url: string;
  output(): string;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => {
        if (typeof address === 'object' && address) resolve(address.port);
        else reject(new Error('no free port'));
      });
    });
  });
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(1_000);
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

export async function startHaproxy(options: HaproxyOptions, timeoutMs = 15_000): Promise<RunningHaproxy> {
  const port = await freePort();
  const [hub1, hub2, hub3] = options.backends;
  const child: ChildProcess = spawn(haproxyBinary, ['-db', '-f', haproxyConfig], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      SVC_LB_BIND: `127.0.0.1:${String(port)}`,
      SVC_LB_CERT: options.certificateFile,
      SVC_HUB_CA: options.backendCaFile,
      SVC_HUB1: hub1,
      SVC_HUB2: hub2,
      SVC_HUB3: hub3,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const keep = (chunk: Buffer) => {
    log = (log + chunk.toString('utf8')).slice(-256 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const state = { ended: false };
  const exited = new Promise<void>((resolve) => {
    child.once('exit', () => {
      state.ended = true;
      resolve();
    });
  });
  const stop = async () => {
    if (!state.ended) child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  const deadline = Date.now() + timeoutMs;
  for (let attempt = 0; attempt < 1_000; attempt++) {
    if (state.ended) throw new Error(`haproxy ended:\n${log.slice(-3000)}`);
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`haproxy did not listen in ${String(timeoutMs)} ms:\n${log.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return { port, url: `https://127.0.0.1:${String(port)}`, output: () => log, stop };
}
