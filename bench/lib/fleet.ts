/**
 * Shared set-up of the fleet benchmarks: a data directory with N enrolled agents, the hub as its own process
 * (HTTPS with the built-in CA, rate limits off), and the simulated fleet split over child processes of at
 * most 5,000 agents (the sandbox caps open files per process at 20,000).
 */
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { createHub, localOwnerContext, parseEnv, silentLogger } from '@svc/hub';
import { provisionAgents, type SimulatedAgentIdentity } from '@svc/testkit';
import { freePort, startTs, type Child } from './processes.js';

const agentsPerChild = 5000;

export interface PreparedFleet {
  dataDir: string;
  caFile: string;
  ca: string;
  ownerKey: string;
  identityFiles: string[];
  count: number;
  provisionMs: number;
}

export async function prepareFleet(count: number): Promise<PreparedFleet> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bench-fleet-'));
  const env = {
    SVC_DATA_DIR: dataDir,
    SVC_TLS_MODE: 'auto',
    SVC_BCRYPT_COST: '4',
    SVC_RATE_LIMIT_ENABLED: 'false',
  };
  const hub = await createHub({ config: parseEnv(env, dataDir), logger: silentLogger });
  const started = performance.now();
  const identities: SimulatedAgentIdentity[] = await provisionAgents(hub, count);
  const provisionMs = performance.now() - started;
  const ca = hub.tls.caCertificate();
  const ownerKey = (await hub.services.apiKeys.rotateOwnerToken(await localOwnerContext(hub.database.db)))
    .raw_key;
  await hub.close();
  if (!ca || !ownerKey) throw new Error('fleet hub has no CA or owner key');
  const caFile = path.join(dataDir, 'bench-ca.pem');
  fs.writeFileSync(caFile, ca);
  const identityFiles: string[] = [];
  for (let i = 0; i < identities.length; i += agentsPerChild) {
    const file = path.join(dataDir, `fleet-${i / agentsPerChild}.json`);
    fs.writeFileSync(file, JSON.stringify(identities.slice(i, i + agentsPerChild)));
    identityFiles.push(file);
  }
  return { dataDir, caFile, ca, ownerKey, identityFiles, count, provisionMs };
}

export interface HubProcess {
  child: Child;
  origin: string;
  httpsPort: number;
}

export async function startHubProcess(
  fleet: PreparedFleet,
  ports?: { https: number; http: number },
): Promise<HubProcess> {
  const httpsPort = ports?.https ?? (await freePort());
  const httpPort = ports?.http ?? (await freePort());
  const child = await startTs(
    'apps/hub/src/main.ts',
    {
      SVC_DATA_DIR: fleet.dataDir,
      SVC_TLS_MODE: 'auto',
      SVC_HOST: '127.0.0.1',
      SVC_HTTPS_PORT: String(httpsPort),
      SVC_HTTP_PORT: String(httpPort),
      SVC_RATE_LIMIT_ENABLED: 'false',
      SVC_LOG_LEVEL: 'info',
    },
    'svc hub on',
    // A shared machine under heavy load can take minutes to start a process through tsx.
    300_000,
    // BENCH_HUB_PROFILE_DIR=<dir>: the hub writes a V8 CPU profile there when it stops (for finding costs).
    process.env.BENCH_HUB_PROFILE_DIR
      ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_HUB_PROFILE_DIR}`]
      : [],
    process.env.BENCH_HUB_PROFILE_DIR ? 60_000 : 5_000,
  );
  return { child, origin: `https://127.0.0.1:${httpsPort}`, httpsPort };
}

/** The counters a fleet child reports (FleetStats of @svc/testkit). */
interface FleetCounters {
  connected: number;
  connectFailures: number;
  reconnects: number;
  tlsConnects: number;
  tlsResumed: number;
}

export interface FleetProcesses {
  children: Child[];
  stop(): Promise<void>;
  /** Sum of the children's last reported counters. */
  stats(): FleetCounters;
}

export async function startFleetProcesses(
  fleet: PreparedFleet,
  origin: string,
  extraEnv: Record<string, string> = {},
  /** Each child keeps its connect attempts and writes them to `<prefix>-<child>.json` when stopped. */
  attemptsFilePrefix?: string,
): Promise<FleetProcesses> {
  const children: Child[] = [];
  const latest = new Map<number, FleetCounters>();
  for (const [index, file] of fleet.identityFiles.entries()) {
    const child = await startTs(
      'bench/lib/fleet-child.ts',
      {
        FLEET_FILE: file,
        FLEET_ORIGIN: origin,
        FLEET_CA_FILE: fleet.caFile,
        ...(attemptsFilePrefix ? { FLEET_ATTEMPTS_FILE: `${attemptsFilePrefix}-${String(index)}.json` } : {}),
        ...extraEnv,
      },
      '"fleet"',
      300_000,
    );
    child.process.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!line.startsWith('{"fleet"')) continue;
        try {
          const parsed = JSON.parse(line) as {
            fleet: FleetCounters;
          };
          latest.set(index, parsed.fleet);
        } catch {
          // a partial line: the next report comes within a second
        }
      }
    });
    children.push(child);
  }
  return {
    children,
    stop: async () => {
      await Promise.all(children.map((c) => c.stop()));
    },
    stats: () => {
      const sum: FleetCounters = {
        connected: 0,
        connectFailures: 0,
        reconnects: 0,
        tlsConnects: 0,
        tlsResumed: 0,
      };
      for (const s of latest.values()) {
        sum.connected += s.connected;
        sum.connectFailures += s.connectFailures;
        sum.reconnects += s.reconnects;
        sum.tlsConnects += s.tlsConnects;
        sum.tlsResumed += s.tlsResumed;
      }
      return sum;
    },
  };
}

const keepAlive = new https.Agent({ keepAlive: true, maxSockets: 4 });

/** A GET over HTTPS with the fleet's CA; resolves with status, body and the latency in ms. */
export function timedGet(
  origin: string,
  pathname: string,
  key: string,
  ca: string,
): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = https.request(
      `${origin}${pathname}`,
      { headers: { authorization: `Bearer ${key}` }, ca, agent: keepAlive, timeout: 30_000 },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, ms: performance.now() - started });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
    req.end();
  });
}

export async function connectedAgents(origin: string, key: string, ca: string): Promise<number> {
  const res = await timedGet(origin, '/api/v2/hub/status', key, ca);
  if (res.status !== 200) return -1;
  return (JSON.parse(res.body) as { data: { agents_connected: number } }).data.agents_connected;
}

export async function waitForAgents(
  origin: string,
  key: string,
  ca: string,
  count: number,
  timeoutMs: number,
): Promise<number | null> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    const n = await connectedAgents(origin, key, ca).catch(() => -1);
    if (n >= count) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 500));
  }
  return null;
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export function cleanup(fleet: PreparedFleet): void {
  fs.rmSync(fleet.dataDir, { recursive: true, force: true });
}
