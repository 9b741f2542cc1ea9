/**
 * A nats-server of a test's own (Debian's /usr/sbin/nats-server) on a free loopback port, which the test may
 * stop and start again on the same port and store, leaving the shared server on 4222 alone.
 */
import fs from 'node:fs';
import path from 'node:path';
import { freePort, spawnLocal, waitListening, type LocalProcess } from './local-process.js';

const natsServerBinary = '/usr/sbin/nats-server';

export interface NatsServerOptions {
  /** Its store directory (the caller makes and removes it). */
  storeDir: string;
  /** Run JetStream too. */
  jetStream?: boolean;
  /** The server's max_payload in bytes (1 MiB when absent), set through a config file in the store dir. */
  maxPayload?: number;
}

export interface OwnNatsServer {
  readonly url: string;
  readonly port: number;
  /** Stops it (SIGTERM, SIGKILL after 5 s) and waits until it has exited. */
  stop: () => Promise<void>;
  /** Starts it again on the same port and store; waits until it accepts connections. */
  start: () => Promise<void>;
  /** SIGKILL now, without waiting: for a process `exit` handler. */
  killNow: () => void;
}

export async function startNatsServer(options: NatsServerOptions): Promise<OwnNatsServer> {
  const port = await freePort();
  const args = [
    '-a',
    '127.0.0.1',
    '-p',
    String(port),
    ...(options.jetStream ? ['-js'] : []),
    '-sd',
    options.storeDir,
  ];
  if (options.maxPayload !== undefined) {
    const config = path.join(options.storeDir, 'nats.conf');
    fs.writeFileSync(config, `max_payload: ${String(Math.floor(options.maxPayload))}\n`);
    args.push('-c', config);
  }
  let running: LocalProcess | null = null;
  const stop = async () => {
    const current = running;
    running = null;
    await current?.stop('SIGTERM', 5_000);
  };
  const start = async () => {
    if (running && !running.ended()) return;
    const started = spawnLocal(natsServerBinary, args, { keepOutput: 16 * 1024 });
    running = started;
    try {
      await waitListening(started, port, 'nats-server');
    } catch (error) {
      await stop();
      throw error;
    }
  };
  await start();
  return {
    url: `nats://127.0.0.1:${String(port)}`,
    port,
    stop,
    start,
    killNow: () => running?.child.kill('SIGKILL'),
  };
}
