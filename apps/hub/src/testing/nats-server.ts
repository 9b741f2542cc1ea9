/**
 * A nats-server of a test's own (from the Debian package) on a free loopback port with a temp store dir, so the
 * test can stop and restart it without touching the shared one on 4222.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startNatsServer } from '@svc/testkit';

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

/** @param options.maxPayload the server's max_payload in bytes (1 MiB when absent) */
export async function startTestNatsServer(options: { maxPayload?: number } = {}): Promise<TestNatsServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-nats-'));
  const server = await startNatsServer({ storeDir: dir, ...options }).catch((error: unknown) => {
    fs.rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  return {
    url: server.url,
    port: server.port,
    start: server.start,
    stop: server.stop,
    async dispose() {
      await server.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
