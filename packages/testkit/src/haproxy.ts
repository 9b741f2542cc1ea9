/**
 * Debian's HAProxy (/usr/sbin/haproxy) in the foreground on loopback, running the deployment's own
 * configuration (deploy/haproxy/haproxy.cfg) with its addresses and files given through the environment it
 * reads. For tests of hub processes behind a load balancer (decision 0041).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, spawnLocal, waitListening } from './local-process.js';

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

export async function startHaproxy(options: HaproxyOptions, timeoutMs = 15_000): Promise<RunningHaproxy> {
  const port = await freePort();
  const [hub1, hub2, hub3] = options.backends;
  const haproxy = spawnLocal(haproxyBinary, ['-db', '-f', haproxyConfig], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      SVC_LB_BIND: `127.0.0.1:${String(port)}`,
      SVC_LB_CERT: options.certificateFile,
      SVC_HUB_CA: options.backendCaFile,
      SVC_HUB1: hub1,
      SVC_HUB2: hub2,
      SVC_HUB3: hub3,
    },
    // Its request log: tests count which backend served what.
    keepOutput: 256 * 1024,
  });
  const stop = () => haproxy.stop('SIGTERM', 5_000);
  try {
    await waitListening(haproxy, port, 'haproxy', { timeoutMs, intervalMs: 100 });
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `https://127.0.0.1:${String(port)}`, output: haproxy.output, stop };
}
