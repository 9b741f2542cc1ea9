/**
 * What the end-to-end tests share: an HTTPS client pinned to the hub's CA, the real svc-agent as a child
 * process (enroll, then run), the hub as a child process (for kill and restart), a UDP listener for
 * Wake-on-LAN, and bounded polling. Everything listens and connects on 127.0.0.1 only.
 *
 * Every child process started here is remembered and killed by its pid in `killChildren()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import dgram from 'node:dgram';
import fs from 'node:fs';
import https from 'node:https';
import { TLSSocket } from 'node:tls';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '../platform/clock.js';
import { routes } from '@svc/protocol';
import { testTerminalEnvironment } from '@svc/testkit';
import { createRouteMatcher } from '../http/route-match.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const agentLauncher = path.join(repoRoot, 'apps/agent/bin/svc-agent.js');
/** The compiled hub's launcher, built by the test run's global setup (scripts/build.js). */
const hubMain = path.join(repoRoot, 'apps/hub/bin/svc-hub.js');

/**
 * A ManualClock that reads the real time: certificates are valid for the real TLS clients, and metric
 * samples stamped by the real agent fall inside the hub's "now" windows.
 */
export class RealTimeClock extends ManualClock {
  override now(): Date {
    return new Date();
  }
}

// ---- polling -------------------------------------------------------------------------------------------

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `probe` until it returns a value other than undefined; fails after `timeoutMs` naming `what`. */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  { timeoutMs = 20_000, intervalMs = 200 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown = null;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`);
    }
    await sleep(intervalMs);
  }
}

// ---- HTTPS client --------------------------------------------------------------------------------------

export interface ApiResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  text: string;
  json: {
    data?: unknown;
    error?: string;
    message?: string;
    status?: number;
    meta?: { total: number; page: number; per_page: number };
  };
}

export interface ApiOptions {
  /** Bearer key; null sends none. Default: the client's key. */
  key?: string | null;
  body?: unknown;
  timeoutMs?: number;
}

/** One call the client made: the route it matched in the inventory, and the answer's status. */
export interface CallRecord {
  route: string | null;
  method: string;
  path: string;
  status: number;
}

const routeMatcher = createRouteMatcher(Object.values(routes));

/** The inventory route a request lands on, as the router picks it. */
function matchRoute(method: string, urlPath: string): string | null {
  return routeMatcher.find(method, urlPath.split('?')[0] ?? '')?.contract.name ?? null;
}

/** A client for the hub's REST API over real HTTPS, verifying the hub against its CA. */
export class HubClient {
  readonly calls: CallRecord[] = [];
  private readonly agent: https.Agent;

  constructor(
    readonly baseUrl: string,
    readonly ca: string,
    readonly key: string | null = null,
  ) {
    this.agent = new https.Agent({ ca, keepAlive: true, maxSockets: 8 });
  }

  /** The same connection settings with another key. */
  withKey(key: string): HubClient {
    const other = new HubClient(this.baseUrl, this.ca, key);
    // Calls made with any derived client count for the coverage check too.
    (other as { calls: CallRecord[] }).calls = this.calls;
    return other;
  }

  request(method: string, urlPath: string, options: ApiOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { accept: 'application/json' };
    const key = options.key === undefined ? this.key : options.key;
    if (key) headers.authorization = `Bearer ${key}`;
    let payload: Buffer | null = null;
    if (options.body !== undefined) {
      payload = Buffer.from(JSON.stringify(options.body));
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(payload.length);
    }
    return new Promise((resolve, reject) => {
      const req = https.request(
        new URL(urlPath, this.baseUrl),
        { method, headers, agent: this.agent, timeout: options.timeoutMs ?? 60_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const body = Buffer.concat(chunks);
            const text = body.toString('utf8');
            let json: ApiResponse['json'] = {};
            if ((res.headers['content-type'] ?? '').includes('json')) {
              try {
                json = JSON.parse(text) as ApiResponse['json'];
              } catch {
                json = {};
              }
            }
            const status = res.statusCode ?? 0;
            this.calls.push({ route: matchRoute(method, urlPath), method, path: urlPath, status });
            resolve({ status, headers: res.headers, body, text, json });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${urlPath}: no answer in time`)));
      req.on('error', reject);
      req.end(payload ?? undefined);
    });
  }

  get = (urlPath: string, options?: ApiOptions) => this.request('GET', urlPath, options);
  post = (urlPath: string, body?: unknown, options?: ApiOptions) =>
    this.request('POST', urlPath, { ...options, body: body ?? {} });
  delete = (urlPath: string, options?: ApiOptions) => this.request('DELETE', urlPath, options);

  close(): void {
    this.agent.destroy();
  }
}

/** `data` of a 2xx envelope, or an error that shows the whole answer. */
// The caller names the shape it expects; the answer is checked by the assertions that use it.
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters
export function dataOf<T>(res: ApiResponse, status = 200): T {
  if (res.status !== status)
    throw new Error(`expected ${status}, got ${res.status}: ${res.text.slice(0, 500)}`);
  return res.json.data as T;
}

export interface HubTrust {
  caPem: string;
  /** As /api/v1/tls/info shows it: `AB:CD:…`. */
  caFingerprint: string;
}

/**
 * The hub's CA, fetched the way a newcomer does (without verification), then checked: it is a CA, its
 * fingerprint is the one /tls/info shows, and it issued the certificate the hub serves.
 */
export async function fetchHubTrust(baseUrl: string): Promise<HubTrust> {
  const get = (p: string) =>
    new Promise<{ status: number; body: string; peer: X509Certificate | null }>((resolve, reject) => {
      const req = https.request(
        new URL(p, baseUrl),
        { rejectUnauthorized: false, agent: false, timeout: 10_000 },
        (res) => {
          const socket = res.socket;
          const raw = socket instanceof TLSSocket ? socket.getPeerCertificate().raw : undefined;
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () => {
            resolve({ status: res.statusCode ?? 0, body, peer: raw ? new X509Certificate(raw) : null });
          });
        },
      );
      req.on('timeout', () => req.destroy(new Error('no answer')));
      req.on('error', reject);
      req.end();
    });
  const info = await get('/api/v1/tls/info');
  if (info.status !== 200) throw new Error(`tls/info answered ${info.status}`);
  const fingerprint = (JSON.parse(info.body) as { data: { ca_fingerprint_sha256: string | null } }).data
    .ca_fingerprint_sha256;
  const ca = await get('/api/v1/tls/ca.crt');
  if (ca.status !== 200 || !fingerprint) throw new Error(`the hub serves no CA (${ca.status})`);
  const cert = new X509Certificate(ca.body);
  if (!cert.ca) throw new Error('the hub CA is not a CA');
  if (cert.fingerprint256 !== fingerprint) throw new Error('the hub CA does not match /tls/info');
  if (!ca.peer?.checkIssued(cert)) throw new Error('the hub certificate was not issued by its CA');
  return { caPem: ca.body, caFingerprint: fingerprint };
}

// ---- child processes -----------------------------------------------------------------------------------

const children = new Set<ChildProcess>();

export interface Child {
  readonly process: ChildProcess;
  readonly pid: number;
  /** What it wrote to stdout and stderr so far (for diagnostics). */
  output(): string;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends the signal (by pid) and waits for the exit, SIGKILL after `graceMs`. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
}

function track(child: ChildProcess): Child {
  if (child.pid === undefined) throw new Error('the child process did not start');
  const pid = child.pid;
  children.add(child);
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-64 * 1024);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      children.delete(child);
      resolve({ code, signal });
    });
  });
  return {
    process: child,
    pid,
    output: () => output,
    exited,
    async stop(signal = 'SIGTERM', graceMs = 5_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Kills every child process these helpers started that is still running (afterAll). */
export async function killChildren(): Promise<void> {
  const running = [...children];
  for (const child of running) child.kill('SIGKILL');
  await Promise.all(
    running.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) resolve();
          else
            child.once('exit', () => {
              resolve();
            });
        }),
    ),
  );
}

/** Runs a command to its end (bounded) and returns its exit code and output. */
async function runToEnd(
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs = 60_000,
): Promise<{ code: number | null; output: string }> {
  const child = track(
    spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] }),
  );
  const timer = setTimeout(() => child.process.kill('SIGKILL'), timeoutMs);
  const { code } = await child.exited;
  clearTimeout(timer);
  return { code, output: child.output() };
}

/**
 * A directory to put first on the agent's PATH: `shutdown`, `reboot`, `poweroff`, `halt` and the power verbs
 * of `systemctl` only write to `marker` and fail. A guard rail under the agent's own allow_power_actions=false:
 * whatever happens, a test never reboots or powers off the machine it runs on.
 */
export function powerGuard(dir: string): { binDir: string; marker: string } {
  const binDir = path.join(dir, 'guard-bin');
  const marker = path.join(dir, 'power-command-ran');
  fs.mkdirSync(binDir, { recursive: true });
  const refuse = `echo "$0 $*" >> '${marker}'\nexit 1\n`;
  for (const name of ['shutdown', 'reboot', 'poweroff', 'halt']) {
    fs.writeFileSync(path.join(binDir, name), `#!/bin/sh\n${refuse}`, { mode: 0o755 });
  }
  const realSystemctl = ['/usr/bin/systemctl', '/bin/systemctl'].find((p) => fs.existsSync(p));
  fs.writeFileSync(
    path.join(binDir, 'systemctl'),
    [
      '#!/bin/sh',
      'case "$1" in reboot|poweroff|halt|kexec|suspend|hibernate|hybrid-sleep|soft-reboot)',
      `  echo "$0 $*" >> '${marker}'`,
      '  exit 1;;',
      'esac',
      realSystemctl ? `exec ${realSystemctl} "$@"` : 'exit 127',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return { binDir, marker };
}

export interface AgentProcess extends Child {
  readonly configPath: string;
}

export interface EnrollInput {
  hubUrl: string;
  token: string;
  caFingerprint: string;
  configPath: string;
  hostname: string;
}

/** `svc-agent enroll … --no-power-actions`, as an admin would run it. */
export async function enrollAgent(input: EnrollInput): Promise<{ code: number | null; output: string }> {
  return runToEnd(
    [
      agentLauncher,
      'enroll',
      '--hub',
      input.hubUrl,
      '--token',
      input.token,
      '--ca-fingerprint',
      input.caFingerprint,
      '--config',
      input.configPath,
      '--hostname',
      input.hostname,
      '--no-power-actions',
    ],
    { ...process.env, SVC_AGENT_CONFIG: '' },
  );
}

/** Any other `svc-agent` command (`settings test docker`…), run to its end. */
export async function agentCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  return runToEnd([agentLauncher, ...args], { ...process.env, SVC_AGENT_CONFIG: '', ...env });
}

/** `svc-hub <args>` (backup, restore, migrate) as its own process, to its end, on the compiled output. */
export async function hubCli(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; output: string }> {
  const clean = { ...process.env };
  delete clean.SVC_DATABASE_URL;
  return runToEnd([hubMain, ...args], { ...clean, ...env });
}

/** `svc-agent run --config …` as its own process. */
export function runAgent(configPath: string, env: Record<string, string>): AgentProcess {
  const child = track(
    spawn(process.execPath, [agentLauncher, 'run', '--config', configPath], {
      cwd: repoRoot,
      // Its terminals run a known shell, not the machine's slow start-up files (decision 0064).
      env: { ...process.env, ...testTerminalEnvironment, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  return { ...child, configPath };
}

export interface HubProcessOptions {
  dataDir: string;
  httpPort: number;
  httpsPort: number;
  env?: Record<string, string>;
}

/** The hub as users start it (`node apps/hub/bin/svc-hub.js`, compiled JavaScript), on loopback. */
export function startHubProcess(options: HubProcessOptions): Child {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    SVC_DATA_DIR: options.dataDir,
    SVC_TLS_MODE: 'auto',
    SVC_HOST: '127.0.0.1',
    SVC_HTTP_PORT: String(options.httpPort),
    SVC_HTTPS_PORT: String(options.httpsPort),
    SVC_BCRYPT_COST: '4',
    SVC_RATE_LIMIT_ENABLED: 'false',
    SVC_LOCAL_AGENT: 'false',
    SVC_LOG_LEVEL: 'warn',
    ...options.env,
  };
  delete env.SVC_DATABASE_URL;
  return track(
    spawn(process.execPath, [hubMain], {
      cwd: repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
}

/** Waits until a hub answers /api/v1/tls/info on this port (or its process ends). */
export async function waitForHub(baseUrl: string, hub: Child, timeoutMs = 45_000): Promise<void> {
  let ended = false;
  void hub.exited.then(() => (ended = true));
  await waitFor(
    `the hub at ${baseUrl}`,
    async () => {
      if (ended) throw new Error(`the hub process ended: ${hub.output().slice(-2000)}`);
      const trust = await fetchHubTrust(baseUrl).catch(() => null);
      return trust ? true : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}

export { freePort } from '@svc/testkit';

// ---- Wake-on-LAN listener ------------------------------------------------------------------------------

export interface UdpListener {
  port: number;
  packets: Buffer[];
  /** The next packet (or one already received since the last call). */
  next(timeoutMs?: number): Promise<Buffer>;
  close(): Promise<void>;
}

export async function listenUdp(): Promise<UdpListener> {
  const socket = dgram.createSocket('udp4');
  const packets: Buffer[] = [];
  let taken = 0;
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => {
      resolve();
    });
  });
  socket.on('message', (message: Buffer) => packets.push(message));
  return {
    port: socket.address().port,
    packets,
    async next(timeoutMs = 5_000) {
      const packet = await waitFor(
        'a UDP packet',
        () => (packets.length > taken ? packets[taken] : undefined),
        { timeoutMs, intervalMs: 20 },
      );
      taken += 1;
      return packet;
    },
    close: () =>
      new Promise<void>((resolve) =>
        socket.close(() => {
          resolve();
        }),
      ),
  };
}

// ---- the hub's view of an asset ------------------------------------------------------------------------

export interface AssetView {
  id: string;
  name: string;
  status: string;
  last_seen_at: string | null;
  agent: { connected: boolean; version: string | null; connected_at: string | null } | null;
}

/** Waits until GET /assets/{id} shows the asset online with its agent connected. */
export function waitOnline(api: HubClient, assetId: string, timeoutMs = 30_000): Promise<AssetView> {
  return waitFor(
    `asset ${assetId} online`,
    async () => {
      const res = await api.get(`/api/v2/assets/${assetId}`);
      const asset = res.json.data as AssetView | undefined;
      return res.status === 200 && asset?.status === 'online' && asset.agent?.connected ? asset : undefined;
    },
    { timeoutMs, intervalMs: 250 },
  );
}
