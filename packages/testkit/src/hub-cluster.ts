/**
 * A cluster of real hub processes for end-to-end tests and benchmarks (decision 0041): N processes of the built
 * hub (`apps/hub/bin/svc-hub.js`) on one PostgreSQL database of their own and one NATS, each with its own data
 * directory and ports on 127.0.0.1, sharing what processes must share:
 * - the hub key (SVC_ENCRYPTION_KEY): every process opens what another sealed (connector credentials, TOTP, the
 *   CA key);
 * - the TLS identity: one built-in CA. Process 0 makes it on first start (its sealed key in the shared
 *   SVC_TLS_CA_KEY_DIR); its certificate is copied into the others' `<data>/tls/ca.crt` before they start, so
 *   each issues its own server certificate from the same CA and an agent that pinned it trusts them all.
 * The owner is claimed through process 0 (its first-run file), as a new owner would.
 *
 * Each process starts with its open-file soft limit raised to the hard limit. Every wait is bounded; `close()`
 * kills what is still running (by pid) and drops the database.
 *
 * For the fault suite (apps/hub/src/e2e/cluster-faults*.e2e.test.ts): a process can be frozen and thawed
 * (SIGSTOP/SIGCONT, a stall such as a long GC pause), and an extra process can be launched on the cluster's
 * database, NATS and hub key with or without the shared CA (a host set up without copying it).
 */
import { randomBytes, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createSecretBox, issueFromBuiltInCa } from '@svc/hub';
import { claimOwner } from './claim-owner.js';
import { tlsRequest } from './https-client.js';
import { freePort, spawnLocal, type LocalProcess } from './local-process.js';
import { startNatsServer, type OwnNatsServer } from './nats-server.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
const hubLauncher = path.join(repoRoot, 'apps/hub/bin/svc-hub.js');

export interface HubClusterOptions {
  /** How many processes (default 3). */
  size?: number;
  /** A PostgreSQL URL the harness may create databases with; the cluster gets a fresh database beside it. */
  postgresUrl?: string;
  /** The NATS every process joins (SVC_NATS_URL); default nats://127.0.0.1:4222. */
  natsUrl?: string;
  /**
   * Start a nats-server of the cluster's own (JetStream, a temporary store, a free port on 127.0.0.1) instead,
   * for tests that stop and restart NATS (`nats.stop()`, `nats.start()`). Ignores `natsUrl`.
   */
  ownNats?: boolean;
  /** Extra environment for every process (SVC_RATE_LIMIT_ENABLED, SVC_LOG_LEVEL…). */
  env?: Record<string, string>;
  /** Extra environment for one process (by index). */
  nodeEnv?: (index: number) => Record<string, string>;
  /** Bound on each wait for /readyz (default 60 s). */
  readyTimeoutMs?: number;
  /** Keep the node's output (stdout and stderr, last 64 KiB) for diagnostics; default true. */
  keepOutput?: boolean;
}

export interface ClusterNode {
  readonly index: number;
  readonly dataDir: string;
  readonly httpsPort: number;
  readonly httpPort: number;
  /** The running process's pid, or null while it is down. */
  pid(): number | null;
  output(): string;
}

export interface ExtraNode {
  readonly url: string;
  readonly dataDir: string;
  readonly process: LocalProcess;
  /** Its exit code once it has exited (null while it runs, or when a signal ended it). */
  exitCode(): number | null;
  /** What it wrote to stderr alone (the last 64 KiB). */
  stderr(): string;
}

/** A process holding an agent: its node id (as `assets.agent_node` names it) and its index in `nodes`. */
export interface AgentHolder {
  node: string;
  index: number;
}

export interface HubCluster {
  readonly nodes: readonly ClusterNode[];
  /** The cluster's database URL (fresh database, dropped on close). */
  readonly databaseUrl: string;
  readonly natsUrl: string;
  /** The cluster's own nats-server (with `ownNats`), stopped and started on the same port and store. */
  readonly nats: OwnNats | null;
  /** The shared built-in CA (PEM) and its SHA-256 fingerprint as agents pin it (`AB:CD:…`). */
  readonly caPem: string;
  readonly caFingerprint: string;
  /** The shared hub key (hex) and the shared CA key directory. */
  readonly encryptionKey: string;
  readonly caKeyDir: string;
  /** The owner, claimed through process 0. */
  readonly owner: { key: string; password: string };
  readonly workDir: string;
  url(index: number): string;
  /** SIGKILL: no shutdown code runs. Resolves when the process is gone. */
  kill(index: number): Promise<void>;
  /** SIGTERM (a clean stop, SIGKILL after `graceMs`). */
  stop(index: number, graceMs?: number): Promise<void>;
  /** Starts a stopped or killed process again on its data directory and ports, and waits for /readyz. */
  start(index: number): Promise<void>;
  /** stop (SIGTERM) then start. */
  restart(index: number): Promise<void>;
  /**
   * SIGSTOP: the process stalls (no timer, no socket read) as in a long GC pause or CPU starvation; its
   * connections stay open. `resume` (SIGCONT) thaws it; stop, kill and close thaw it too.
   */
  pause(index: number): void;
  resume(index: number): void;
  /**
   * Starts one more process (not one of `nodes`, not behind any balancer) on the cluster's database, NATS and
   * hub key, with a data directory and ports of its own and `env` added, without waiting for it to be ready.
   * `withCa: false` gives it neither the CA certificate nor the CA key directory (an empty one): a host whose
   * operator did not copy them. Stopped by `close()`.
   */
  launchExtra(options?: { withCa?: boolean; env?: Record<string, string> }): Promise<ExtraNode>;
  /** Waits until process `index` answers /readyz with 200 (bounded). */
  waitReady(index: number, timeoutMs?: number): Promise<void>;
  /**
   * A certificate and key (one PEM: chain, then key) from the shared CA for these names, written to a file in
   * the work directory: what a load balancer in front of the cluster serves so pinned agents trust it.
   */
  issueCertificate(names: readonly string[]): Promise<{ pemFile: string }>;
  /**
   * The processes holding the agent of `assetId` now (online only): the asset's holder node (assets.agent_node,
   * decision 0039) matched to a process by the pid its node lease records (cluster_nodes). Every process lists
   * every agent of the cluster, so the holder is read from the shared database. More than one while two
   * processes both claim it (the fault suite looks for that).
   */
  holdersOf(assetId: string): Promise<AgentHolder[]>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export type OwnNats = Pick<OwnNatsServer, 'stop' | 'start'>;

const raiseFileLimit = 'ulimit -n "$(ulimit -H -n)" 2>/dev/null; exec "$@"';

const defaultPostgres = 'postgres://postgres@127.0.0.1:5432/test';
const defaultNats = 'nats://127.0.0.1:4222';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

async function readHolders(
  databaseUrl: string,
  nodes: readonly ClusterNode[],
  assetId: string,
): Promise<AgentHolder[]> {
  const db = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 3_000 });
  await db.connect();
  try {
    const { rows } = await db.query<{ node: string; pid: number }>(
      `select a.agent_node as node, n.pid from assets a join cluster_nodes n on n.node_id = a.agent_node
        where a.id = $1 and a.status = 'online'`,
      [assetId],
    );
    return nodes.flatMap((node) => {
      const pid = node.pid();
      const row = pid === null ? undefined : rows.find((r) => r.pid === pid);
      return row ? [{ node: row.node, index: node.index }] : [];
    });
  } finally {
    await db.end();
  }
}

export interface TestDatabase {
  /** The new database's URL. */
  readonly url: string;
  /** Drops it, disconnecting whoever is still on it. */
  drop(): Promise<void>;
}

/**
 * A fresh, empty database beside `adminUrl`'s (whose role may create databases), for hub processes started with
 * SVC_DATABASE_URL: a process cannot be given a schema of its own, as in-process test hubs are.
 */
export async function createTestDatabase(adminUrl: string, prefix = 'svc_test'): Promise<TestDatabase> {
  const database = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await adminQuery(adminUrl, `create database ${database}`);
  return {
    url: withDatabase(adminUrl, database),
    drop: () => adminQuery(adminUrl, `drop database if exists ${database} with (force)`),
  };
}

async function adminQuery(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

interface RunningNode extends ClusterNode {
  /** The running process, or null while it is down. */
  process: LocalProcess | null;
  /** The output of the process now running, or of the last one. */
  last: LocalProcess | null;
}

export async function startHubCluster(options: HubClusterOptions = {}): Promise<HubCluster> {
  const size = options.size ?? 3;
  if (size < 1 || size > 16) throw new Error('a cluster has 1 to 16 processes');
  const adminUrl = options.postgresUrl ?? process.env.SVC_TEST_DATABASE_URL ?? defaultPostgres;
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const database = await createTestDatabase(adminUrl, 'svc_cluster');
  const databaseUrl = database.url;
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-cluster-'));
  const caKeyDir = path.join(workDir, 'ca-key');
  const ownNats = options.ownNats
    ? await startNatsServer({ storeDir: path.join(workDir, 'nats-store'), jetStream: true })
    : null;
  const natsUrl = ownNats?.url ?? options.natsUrl ?? defaultNats;
  const encryptionKey = randomBytes(32).toString('hex');
  const nodes: RunningNode[] = [];
  for (let index = 0; index < size; index++) {
    const node: RunningNode = {
      index,
      dataDir: path.join(workDir, `node-${String(index)}`, 'data'),
      httpsPort: await freePort(),
      httpPort: await freePort(),
      process: null,
      last: null,
      pid: () => node.process?.child.pid ?? null,
      output: () => node.last?.output() ?? '',
    };
    nodes.push(node);
  }
  const nodeAt = (index: number): RunningNode => {
    const node = nodes[index];
    if (!node) throw new Error(`no process ${String(index)} in a cluster of ${String(size)}`);
    return node;
  };
  const url = (index: number) => `https://127.0.0.1:${String(nodeAt(index).httpsPort)}`;
  let caPem: string | null = null;

  const hubEnv = (
    node: { dataDir: string; httpsPort: number; httpPort: number },
    keyDir: string,
    extra: Record<string, string> | undefined,
  ): NodeJS.ProcessEnv => ({
    ...process.env,
    SVC_DATA_DIR: node.dataDir,
    SVC_TLS_MODE: 'auto',
    SVC_TLS_CA_KEY_DIR: keyDir,
    SVC_TLS_HOSTNAMES: 'localhost,127.0.0.1',
    SVC_ENCRYPTION_KEY: encryptionKey,
    SVC_DATABASE_URL: databaseUrl,
    SVC_NATS_URL: natsUrl,
    SVC_HOST: '127.0.0.1',
    SVC_HTTPS_PORT: String(node.httpsPort),
    SVC_HTTP_PORT: String(node.httpPort),
    SVC_BCRYPT_COST: '4',
    SVC_LOCAL_AGENT: 'false',
    SVC_LOG_LEVEL: 'warn',
    // Stopped at once; a test of the shutdown drain sets it (decision 0046).
    SVC_SHUTDOWN_DRAIN_SECONDS: '0',
    ...options.env,
    ...extra,
  });

  const spawnHub = (env: NodeJS.ProcessEnv): LocalProcess =>
    // Through sh only to raise the open-file soft limit to the hard one (a process holding thousands of agent
    // sockets needs it); `exec` makes the hub the process the pid names.
    spawnLocal('/bin/sh', ['-c', raiseFileLimit, 'sh', process.execPath, hubLauncher], {
      cwd: repoRoot,
      env,
      keepOutput: options.keepOutput === false ? 0 : 64 * 1024,
    });

  const extras: LocalProcess[] = [];
  const paused = new Set<number>();

  const spawnNode = (node: RunningNode): void => {
    paused.delete(node.index);
    const started = spawnHub(hubEnv(node, caKeyDir, options.nodeEnv?.(node.index)));
    node.process = started;
    node.last = started;
    void started.exited.then(() => {
      if (node.process === started) node.process = null;
    });
  };

  const waitReady = async (index: number, timeoutMs = readyTimeoutMs): Promise<void> => {
    const node = nodeAt(index);
    const deadline = Date.now() + timeoutMs;
    let last = 'no answer yet';
    for (let attempt = 0; attempt < 10_000 && Date.now() < deadline; attempt++) {
      if (!node.process)
        throw new Error(`hub process ${String(index)} ended:\n${node.output().slice(-3000)}`);
      try {
        const answer = await tlsRequest(`${url(index)}/readyz`, {
          method: 'GET',
          ...(caPem ? { ca: caPem } : { insecure: true }),
        });
        if (answer.status === 200) return;
        last = `${String(answer.status)} ${answer.body.slice(0, 300)}`;
      } catch (error) {
        last = (error as Error).message;
      }
      await sleep(200);
    }
    throw new Error(
      `hub process ${String(index)} not ready in ${String(timeoutMs)} ms (${last}):\n${node.output().slice(-3000)}`,
    );
  };

  const stopNode = async (index: number, signal: NodeJS.Signals, graceMs: number): Promise<void> => {
    const running = nodeAt(index).process;
    if (!running) return;
    const stopped = running.stop(signal, graceMs);
    // A frozen process acts on SIGTERM only once thawed (SIGKILL needs no thaw, but the flag is cleared too).
    if (paused.delete(index)) running.child.kill('SIGCONT');
    await stopped;
  };

  const signalNode = (index: number, signal: 'SIGSTOP' | 'SIGCONT'): void => {
    const running = nodeAt(index).process;
    if (!running) throw new Error(`hub process ${String(index)} is not running`);
    running.child.kill(signal);
    if (signal === 'SIGSTOP') paused.add(index);
    else paused.delete(index);
  };

  const writeCaCertificate = (dataDir: string): void => {
    if (!caPem) return;
    // The shared CA's certificate, where the hub looks for it: it issues its server certificate from it.
    const tlsDir = path.join(dataDir, 'tls');
    fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    fs.mkdirSync(tlsDir, { recursive: true, mode: 0o755 });
    fs.writeFileSync(path.join(tlsDir, 'ca.crt'), caPem, { mode: 0o644 });
  };

  const launchExtra = (
    extra: { withCa?: boolean; env?: Record<string, string> } = {},
    ports: { httpsPort: number; httpPort: number },
  ): ExtraNode => {
    const name = `extra-${String(extras.length)}`;
    const dataDir = path.join(workDir, name, 'data');
    const withCa = extra.withCa ?? true;
    let keyDir = caKeyDir;
    if (withCa) writeCaCertificate(dataDir);
    else {
      keyDir = path.join(workDir, name, 'ca-key');
      fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    }
    const started = spawnHub(hubEnv({ dataDir, ...ports }, keyDir, extra.env));
    extras.push(started);
    let stderr = '';
    started.child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString('utf8')).slice(-64 * 1024);
    });
    return {
      stderr: () => stderr,
      url: `https://127.0.0.1:${String(ports.httpsPort)}`,
      dataDir,
      process: started,
      exitCode: () => started.child.exitCode,
    };
  };

  const startNode = async (index: number): Promise<void> => {
    const node = nodeAt(index);
    if (node.process) throw new Error(`hub process ${String(index)} is running`);
    writeCaCertificate(node.dataDir);
    spawnNode(node);
    await waitReady(index);
  };

  // A test runner that ends without close() (a crash, an exit in the middle) leaves no hub or nats-server behind.
  const killOnExit = () => {
    for (const node of nodes) node.process?.child.kill('SIGKILL');
    for (const extra of extras) extra.child.kill('SIGKILL');
    ownNats?.killNow();
  };
  process.once('exit', killOnExit);

  const dropAll = async (): Promise<void> => {
    process.off('exit', killOnExit);
    await Promise.all(
      nodes.map(async (n) => {
        await n.process?.stop('SIGKILL', 0);
      }),
    );
    await Promise.all(extras.map((extra) => extra.stop('SIGKILL', 0)));
    await ownNats?.stop();
    await database.drop().catch(() => undefined);
    fs.rmSync(workDir, { recursive: true, force: true });
  };

  try {
    // Process 0 first: it runs the migrations, makes the CA and the first-run owner.
    await startNode(0);
    const first = nodeAt(0);
    caPem = fs.readFileSync(path.join(first.dataDir, 'tls', 'ca.crt'), 'utf8');
    await Promise.all(nodes.slice(1).map((n) => startNode(n.index)));
    const claimed = await claimOwner(url(0), first.dataDir, { ca: caPem });
    const caFingerprint = new X509Certificate(caPem).fingerprint256;
    const sharedCa = caPem;
    return {
      nodes,
      databaseUrl,
      natsUrl,
      nats: ownNats,
      caPem: sharedCa,
      caFingerprint,
      encryptionKey,
      caKeyDir,
      owner: { key: claimed.ownerKey, password: claimed.password },
      workDir,
      url,
      kill: (index) => stopNode(index, 'SIGKILL', 0),
      stop: (index, graceMs = 10_000) => stopNode(index, 'SIGTERM', graceMs),
      start: startNode,
      pause: (index) => {
        signalNode(index, 'SIGSTOP');
      },
      resume: (index) => {
        signalNode(index, 'SIGCONT');
      },
      launchExtra: async (extra) =>
        launchExtra(extra, { httpsPort: await freePort(), httpPort: await freePort() }),
      restart: async (index) => {
        await stopNode(index, 'SIGTERM', 10_000);
        await startNode(index);
      },
      waitReady,
      issueCertificate: async (names) => {
        const pair = await issueFromBuiltInCa({
          dataDir: first.dataDir,
          caKeyDir,
          box: createSecretBox(Buffer.from(encryptionKey, 'hex')),
          names,
          now: new Date(),
        });
        const pemFile = path.join(workDir, `issued-${randomBytes(4).toString('hex')}.pem`);
        fs.writeFileSync(pemFile, `${pair.certPem.trim()}\n${pair.keyPem.trim()}\n`, { mode: 0o600 });
        return { pemFile };
      },
      holdersOf: (assetId) => readHolders(databaseUrl, nodes, assetId),
      close: dropAll,
    };
  } catch (error) {
    await dropAll();
    throw error;
  }
}
