/**
 * Debian's real Prometheus (/usr/bin/prometheus) of a test's own: a free loopback port, its TSDB in a temporary
 * directory, the scrape configuration the test writes; optionally a remote-write receiver. Queried through its
 * HTTP API.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort, spawnLocal, waitListening } from './local-process.js';

const prometheusBinary = '/usr/bin/prometheus';

export interface PrometheusServerOptions {
  /** prometheus.yml's text; a file `<dir>/…` it names may be written through `files`. */
  config?: string;
  /** Other files beside the configuration (a CA certificate), by name. */
  files?: Record<string, string>;
  /** `--web.enable-remote-write-receiver`: POST /api/v1/write takes remote-write requests. */
  remoteWriteReceiver?: boolean;
}

export interface PrometheusServer {
  readonly url: string;
  readonly port: number;
  /** The directory holding the configuration and the files given (paths in `config` may use `{dir}`). */
  readonly dir: string;
  /** GET `/api/v1/<pathname>` and its `data`, or throws with its error. */
  api: (pathname: string) => Promise<unknown>;
  stop: () => Promise<void>;
}

/**
 * Until `/-/ready` answers 200: prometheus listens before its storage is open, and answers its API with a
 * plain-text 503 "Service Unavailable" until then.
 */
async function waitReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await fetch(`${url}/-/ready`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    if (Date.now() > deadline)
      throw new Error(`prometheus at ${url} not ready within ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export async function startPrometheus(options: PrometheusServerOptions = {}): Promise<PrometheusServer> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-prometheus-'));
  for (const [name, text] of Object.entries(options.files ?? {}))
    fs.writeFileSync(path.join(dir, name), text);
  const configFile = path.join(dir, 'prometheus.yml');
  fs.writeFileSync(
    configFile,
    (options.config ?? 'global:\n  scrape_interval: 15s\n').replaceAll('{dir}', dir),
  );
  const port = await freePort();
  const child = spawnLocal(
    prometheusBinary,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${path.join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${String(port)}`,
      ...(options.remoteWriteReceiver ? ['--web.enable-remote-write-receiver'] : []),
    ],
    { keepOutput: 32 * 1024 },
  );
  const stop = async () => {
    await child.stop('SIGTERM', 5_000);
    fs.rmSync(dir, { recursive: true, force: true });
  };
  const url = `http://127.0.0.1:${String(port)}`;
  try {
    await waitListening(child, port, 'prometheus', { timeoutMs: 20_000 });
    await waitReady(url, 20_000);
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    url,
    port,
    dir,
    async api(pathname) {
      const response = await fetch(`${url}/api/v1/${pathname}`);
      const body = (await response.json()) as { status: string; data?: unknown; error?: string };
      if (body.status !== 'success')
        throw new Error(`prometheus ${pathname}: ${body.error ?? response.status}`);
      return body.data;
    },
    stop,
  };
}
