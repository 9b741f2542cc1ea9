/**
 * A small Docker Engine API client over the configured endpoint (a unix socket through node:http's
 * `socketPath`, or http(s)://host:port). No shell, no CLI: every call is one HTTP request whose path is built
 * from checked parts. The API version is negotiated once from `/_ping` (the lower of the engine's and ours),
 * since Docker 29 refuses versions below 1.44 and podman 4 speaks 1.41.
 * Answers are bounded in bytes; the caller parses them (docker's and podman's shapes differ in places).
 */
import http from 'node:http';
import https from 'node:https';
import type { ContainerEndpoint } from '../config/container-endpoint.js';

/** The newest API version this client was written against; older engines get their own. */
const clientApiVersion = '1.47';
/** JSON answers larger than this are refused (a list of 5,000 containers fits many times over). */
const maxJsonBytes = 32 * 1024 * 1024;

export type EngineErrorKind = 'unreachable' | 'not_found' | 'refused' | 'failed' | 'timeout';

/** A failed engine call: `status` is the engine's HTTP status when it answered. */
export class EngineError extends Error {
  constructor(
    readonly kind: EngineErrorKind,
    message: string,
    readonly status: number | null = null,
  ) {
    super(message);
    this.name = 'EngineError';
  }
}

interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The body was longer than the read cap and was cut. */
  cut: boolean;
}

interface EngineVersion {
  version: string;
  api_version: string;
  os: string;
  arch: string;
}

export interface DockerEngine {
  readonly where: string;
  ping(timeoutMs?: number): Promise<{ apiVersion: string | null }>;
  version(): Promise<EngineVersion>;
  getJson(path: string): Promise<unknown>;
  /** POST an action; `false` when the engine answered 304 (already in that state). */
  post(path: string, timeoutMs: number): Promise<boolean>;
  /** A bounded read of a streamed body (container logs): at most `maxBytes`, `cut` when there was more. */
  getBytes(path: string, maxBytes: number): Promise<{ body: Buffer; cut: boolean }>;
}

function describeSocketError(error: NodeJS.ErrnoException, where: string): string {
  switch (error.code ?? '') {
    case 'ENOENT':
      return `no socket at ${where} (is the container engine installed and running?)`;
    case 'EACCES':
    case 'EPERM':
      return `permission denied on ${where} (run the agent as root or in the docker group)`;
    case 'ECONNREFUSED':
      return `connection refused at ${where} (is the engine running?)`;
    case 'ENOTSOCK':
      return `${where} is not a socket`;
    default:
      return `${where}: ${error.message}`;
  }
}

/** The engine's error text: docker sends `{"message"}`, podman `{"cause","message","response"}`. */
function engineMessage(body: Buffer): string {
  const text = body.toString('utf8').slice(0, 4096);
  try {
    const parsed = JSON.parse(text) as unknown;
    if (parsed && typeof parsed === 'object' && 'message' in parsed) {
      const message = parsed.message;
      if (typeof message === 'string') return message.slice(0, 500);
    }
  } catch {
    // not JSON: the text itself
  }
  return text.trim().slice(0, 500);
}

function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
}

export function negotiateApiVersion(engineVersion: string | null): string {
  if (!engineVersion || !/^\d+\.\d+$/.test(engineVersion)) return clientApiVersion;
  return compareVersions(engineVersion, clientApiVersion) < 0 ? engineVersion : clientApiVersion;
}

export function createDockerEngine(endpoint: ContainerEndpoint, defaultTimeoutMs = 10_000): DockerEngine {
  const where = endpoint.kind === 'unix' ? endpoint.socketPath : endpoint.url;
  let versionPrefix: Promise<string> | null = null;

  function request(
    method: 'GET' | 'POST',
    path: string,
    options: { timeoutMs?: number; maxBytes?: number } = {},
  ): Promise<RawResponse> {
    const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
    const maxBytes = options.maxBytes ?? maxJsonBytes;
    return new Promise((resolve, reject) => {
      const base = {
        method,
        timeout: timeoutMs,
        agent: false,
        headers: { accept: 'application/json', host: 'docker' },
      } as const;
      const req =
        endpoint.kind === 'unix'
          ? http.request({ ...base, socketPath: endpoint.socketPath, path })
          : (endpoint.url.startsWith('https:') ? https : http).request(`${endpoint.url}${path}`, {
              ...base,
              headers: { accept: 'application/json' },
            });
      const timer = setTimeout(() => {
        req.destroy(
          new EngineError('timeout', `${where}: no answer to ${method} ${path} in ${timeoutMs} ms`),
        );
      }, timeoutMs);
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        let cut = false;
        const finish = () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), cut });
        };
        res.on('data', (chunk: Buffer) => {
          if (cut) return;
          const room = maxBytes - size;
          if (chunk.length > room) {
            chunks.push(chunk.subarray(0, room));
            size = maxBytes;
            cut = true;
            // Enough read: stop the engine streaming the rest.
            res.destroy();
            finish();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        res.on('end', finish);
        res.on('error', (error) => {
          if (!cut) {
            clearTimeout(timer);
            reject(new EngineError('failed', `${where}: ${error.message}`));
          }
        });
      });
      req.on('timeout', () => {
        req.destroy(
          new EngineError('timeout', `${where}: no answer to ${method} ${path} in ${timeoutMs} ms`),
        );
      });
      req.on('error', (error: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        if (error instanceof EngineError) reject(error);
        else reject(new EngineError('unreachable', describeSocketError(error, where)));
      });
      req.end();
    });
  }

  async function ping(timeoutMs?: number): Promise<{ apiVersion: string | null }> {
    const res = await request('GET', '/_ping', { maxBytes: 1024, ...(timeoutMs ? { timeoutMs } : {}) });
    if (res.status !== 200 || res.body.toString('utf8').trim() !== 'OK') {
      const said = res.body.toString('utf8').trim().slice(0, 200);
      throw new EngineError(
        'refused',
        `${where} answered ${res.status}${said ? `: ${said}` : ''} (not a container engine?)`,
        res.status,
      );
    }
    const header = res.headers['api-version'];
    return { apiVersion: typeof header === 'string' ? header : null };
  }

  function prefix(): Promise<string> {
    versionPrefix ??= ping().then(
      ({ apiVersion }) => `/v${negotiateApiVersion(apiVersion)}`,
      (error: unknown) => {
        versionPrefix = null; // try again next time: the engine may start later
        throw error;
      },
    );
    return versionPrefix;
  }

  function failure(method: string, path: string, res: RawResponse): EngineError {
    const message = engineMessage(res.body) || `${method} ${path} answered ${res.status}`;
    if (res.status === 404) return new EngineError('not_found', message, 404);
    return new EngineError('failed', message, res.status);
  }

  return {
    where,
    ping,
    async version() {
      const data = await this.getJson('/version');
      const v = (data ?? {}) as Record<string, unknown>;
      const text = (key: string) => (typeof v[key] === 'string' ? v[key].slice(0, 64) : '');
      return {
        version: text('Version'),
        api_version: text('ApiVersion'),
        os: text('Os'),
        arch: text('Arch'),
      };
    },
    async getJson(path) {
      const full = `${await prefix()}${path}`;
      const res = await request('GET', full);
      if (res.cut)
        throw new EngineError('failed', `${where}: GET ${path} answered more than ${maxJsonBytes} bytes`);
      if (res.status !== 200) throw failure('GET', path, res);
      try {
        return JSON.parse(res.body.toString('utf8')) as unknown;
      } catch {
        throw new EngineError('failed', `${where}: GET ${path} answered something other than JSON`);
      }
    },
    async post(path, timeoutMs) {
      const full = `${await prefix()}${path}`;
      const res = await request('POST', full, { timeoutMs, maxBytes: 64 * 1024 });
      if (res.status === 304) return false;
      if (res.status >= 200 && res.status < 300) return true;
      throw failure('POST', path, res);
    },
    async getBytes(path, maxBytes) {
      const full = `${await prefix()}${path}`;
      const res = await request('GET', full, { maxBytes, timeoutMs: 30_000 });
      if (res.status !== 200) throw failure('GET', path, res);
      return { body: res.body, cut: res.cut };
    },
  };
}
