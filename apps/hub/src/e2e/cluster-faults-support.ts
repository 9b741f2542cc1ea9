/**
 * What the fault suite's files share (issue 29; cluster-faults*.e2e.test.ts): three built hub processes behind
 * HAProxy running deploy/haproxy/haproxy.cfg, real svc-agent processes enrolled and connected THROUGH HAProxy
 * (one held by each process), which process holds an agent (read from the shared database), and bounded
 * request loops that record every answer (a writer, a reader) so a test can say what a user saw during a fault.
 *
 * Short leases and timeouts come through the environment (SVC_CLUSTER_LEASE_SECONDS), so each fault takes
 * seconds. Everything listens and connects on 127.0.0.1.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { EnrollmentTokenCreated } from '@svc/protocol';
import {
  startBalancedCluster,
  type BalancedCluster,
  type HubCluster,
  type HubClusterOptions,
  type RunningHaproxy,
} from '@svc/testkit';
import {
  dataOf,
  enrollAgent,
  HubClient,
  killChildren,
  powerGuard,
  runAgent,
  sleep,
  waitFor,
  type AgentProcess,
  type ApiResponse,
} from './support.js';

/** The lease the suite runs with (SVC_CLUSTER_LEASE_SECONDS): short, so a stall past it takes seconds. */
export const leaseSeconds = 4;

interface FaultAgent {
  readonly assetId: string;
  /** Replaced when `heal` restarts it. */
  process: AgentProcess;
}

export interface FaultCluster {
  readonly balanced: BalancedCluster;
  readonly cluster: HubCluster;
  readonly lb: RunningHaproxy;
  /** The owner's key, through HAProxy (what users and agents reach). */
  readonly viaLb: HubClient;
  /** The owner's key, straight to process `index` (to choose the process that answers). */
  direct(index: number): HubClient;
  readonly agents: readonly FaultAgent[];
  /** The processes whose lease records the pid of the process holding `assetId`'s agent (online only). */
  holdersOf(assetId: string): Promise<number[]>;
  /** The one process holding `assetId`'s agent, waited for (bounded). */
  holderOf(assetId: string, timeoutMs?: number): Promise<number>;
  /** The agents process `index` holds now. */
  agentsHeldBy(index: number): Promise<FaultAgent[]>;
  /**
   * Between faults: waits (bounded) until every agent shows online through HAProxy, restarting the agent
   * processes of those that do not, so a fault a test found unrecovered does not fail the next test too.
   * Returns the asset ids it had to restart agents for.
   */
  heal(): Promise<string[]>;
  close(): Promise<void>;
}

export interface FaultClusterOptions extends Omit<HubClusterOptions, 'size'> {
  /** Real agents to enroll and run through HAProxy (default 3: one per process). */
  agentCount?: number;
}

/** The environment every fault cluster runs with (merged under the caller's `env`). */
const faultEnv: Record<string, string> = {
  SVC_CLUSTER_LEASE_SECONDS: String(leaseSeconds),
  // HAProxy connects from 127.0.0.1: the processes trust its X-Forwarded-For.
  SVC_TRUSTED_PROXIES: '127.0.0.1',
  // The suite's loops send a few thousand requests a minute from one address and one key.
  SVC_RATE_LIMIT_ENABLED: 'false',
};

/**
 * Starts three processes behind HAProxy, then enrolls and runs `agentCount` real agents through HAProxy, one
 * after another (leastconn gives each to a process holding fewer), each waited for until a process holds it.
 */
export async function startFaultCluster(options: FaultClusterOptions = {}): Promise<FaultCluster> {
  const { agentCount = 3, ...clusterOptions } = options;
  const balanced = await startBalancedCluster({
    ...clusterOptions,
    env: { ...faultEnv, ...clusterOptions.env },
  });
  const { cluster, lb } = balanced;
  const viaLb = new HubClient(lb.url, cluster.caPem, cluster.owner.key);
  const directs = cluster.nodes.map(
    (n) => new HubClient(cluster.url(n.index), cluster.caPem, cluster.owner.key),
  );
  const agents: FaultAgent[] = [];
  let agentEnv: Record<string, string> = {};

  const holdersOf = async (assetId: string): Promise<number[]> =>
    (await cluster.holdersOf(assetId)).map((h) => h.index);
  const holderOf = (assetId: string, timeoutMs = 45_000): Promise<number> =>
    waitFor(
      `a process holding ${assetId}`,
      async () => {
        const held = await holdersOf(assetId);
        return held.length === 1 ? held[0] : undefined;
      },
      { timeoutMs, intervalMs: 250 },
    );

  const close = async () => {
    for (const a of agents) await a.process.stop('SIGTERM', 3_000);
    await killChildren();
    viaLb.close();
    for (const c of directs) c.close();
    await balanced.close();
  };

  try {
    const guard = powerGuard(cluster.workDir);
    const token = dataOf<EnrollmentTokenCreated>(
      await viaLb.post('/api/v2/enrollment-tokens', { name: 'fault suite', max_uses: agentCount }),
      201,
    );
    for (let n = 0; n < agentCount; n++) {
      const configPath = path.join(cluster.workDir, `agent-${String(n)}`, 'settings.json');
      const enrolled = await enrollAgent({
        hubUrl: lb.url,
        token: token.token,
        caFingerprint: cluster.caFingerprint,
        configPath,
        hostname: `fault-agent-${String(n)}`,
      });
      if (enrolled.code !== 0) throw new Error(`svc-agent enroll failed: ${enrolled.output}`);
      const assetId = (JSON.parse(fs.readFileSync(configPath, 'utf8')) as { asset_id: string }).asset_id;
      agentEnv = {
        AGENT_COLLECT_INTERVAL: '5s',
        SVC_AGENT_ALLOW_POWER_ACTIONS: 'false',
        PATH: `${guard.binDir}:${process.env.PATH ?? '/usr/bin:/bin'}`,
      };
      const agentProcess = runAgent(configPath, agentEnv);
      agents.push({ process: agentProcess, assetId });
      try {
        await holderOf(assetId, 40_000);
      } catch (error) {
        throw new Error(`${(error as Error).message}\nagent output:\n${agentProcess.output()}`, {
          cause: error,
        });
      }
    }
  } catch (error) {
    await close();
    throw error;
  }

  return {
    balanced,
    cluster,
    lb,
    viaLb,
    direct: (index) => {
      const c = directs[index];
      if (!c) throw new Error(`no process ${String(index)}`);
      return c;
    },
    agents,
    holdersOf,
    holderOf,
    agentsHeldBy: async (index) => {
      const held: FaultAgent[] = [];
      for (const a of agents) if ((await holdersOf(a.assetId)).includes(index)) held.push(a);
      return held;
    },
    heal: async () => {
      const ids = agents.map((a) => a.assetId);
      const online = await waitAllOnline(viaLb, ids, 10_000).then(
        () => true,
        () => false,
      );
      if (online) return [];
      const restarted: string[] = [];
      for (const a of agents) {
        if ((await statusOf(viaLb, a.assetId).catch(() => 'unknown')) === 'online') continue;
        await a.process.stop('SIGTERM', 3_000);
        a.process = runAgent(a.process.configPath, agentEnv);
        restarted.push(a.assetId);
      }
      await waitAllOnline(viaLb, ids, 30_000);
      return restarted;
    },
    close,
  };
}

// ---- what a user sees --------------------------------------------------------------------------------

/** An asset's status as GET /api/v2/assets/{id} shows it (`online`, `offline`…), or the failure. */
export async function statusOf(client: HubClient, assetId: string, timeoutMs = 3_000): Promise<string> {
  const res = await client.get(`/api/v2/assets/${assetId}`, { timeoutMs });
  if (res.status !== 200) return `http ${String(res.status)}`;
  return (res.json.data as { status: string }).status;
}

/** Waits (bounded) until every asset shows `online` through `client`; returns how long it took. */
export async function waitAllOnline(
  client: HubClient,
  assetIds: readonly string[],
  timeoutMs: number,
): Promise<number> {
  const started = Date.now();
  await waitFor(
    `${String(assetIds.length)} assets online through ${client.baseUrl}`,
    async () => {
      for (const id of assetIds) if ((await statusOf(client, id)) !== 'online') return undefined;
      return true;
    },
    { timeoutMs, intervalMs: 250 },
  );
  return Date.now() - started;
}

/** POST /assets/{id}/exec `echo <word>`: the answer (status and stdout, or the error code). */
export async function execEcho(
  client: HubClient,
  assetId: string,
  word: string,
  timeoutMs = 20_000,
): Promise<{ status: number; stdout: string | null; error: string | null; retryAfter: string | null }> {
  const res: ApiResponse = await client.post(
    `/api/v2/assets/${assetId}/exec`,
    { command: `echo ${word}` },
    { timeoutMs },
  );
  const data = res.json.data as { stdout?: string } | undefined;
  const retryAfter = res.headers['retry-after'];
  return {
    status: res.status,
    stdout: data?.stdout ?? null,
    error: res.json.error ?? null,
    retryAfter: typeof retryAfter === 'string' ? retryAfter : null,
  };
}

/** One answer a loop got: the HTTP status, or 0 with the error (reset, timeout) when there was none. */
export interface LoopAnswer {
  at: number;
  status: number;
  error?: string;
  /** What the caller kept from a 2xx (an id written). */
  value?: string;
}

export interface RequestLoop {
  readonly answers: LoopAnswer[];
  /** Stops after the request in flight; resolves with every answer. */
  stop(): Promise<LoopAnswer[]>;
}

/**
 * Sends `request` one after another until stopped, at most `maxCount` times and for at most `maxMs`, pausing
 * `intervalMs` between; records each answer. A thrown error (no HTTP answer) is recorded, not rethrown.
 */
export function requestLoop(
  request: (n: number) => Promise<{ status: number; value?: string }>,
  {
    maxCount = 5_000,
    maxMs = 120_000,
    intervalMs = 20,
  }: { maxCount?: number; maxMs?: number; intervalMs?: number } = {},
): RequestLoop {
  const answers: LoopAnswer[] = [];
  const run = { stop: false };
  const deadline = Date.now() + maxMs;
  const done = (async () => {
    for (let n = 0; n < maxCount && !run.stop && Date.now() < deadline; n++) {
      try {
        const { status, value } = await request(n);
        answers.push({ at: Date.now(), status, ...(value === undefined ? {} : { value }) });
      } catch (error) {
        answers.push({ at: Date.now(), status: 0, error: (error as Error).message });
      }
      if (intervalMs > 0) await sleep(intervalMs);
    }
  })();
  return {
    answers,
    stop: async () => {
      run.stop = true;
      await done;
      return answers;
    },
  };
}

/** The answers that were not `ok`, shortened for an assertion message. */
export function failed(answers: readonly LoopAnswer[], ok: (status: number) => boolean): string[] {
  return answers
    .filter((a) => !ok(a.status))
    .map((a) => `${new Date(a.at).toISOString()} ${String(a.status)} ${a.error ?? ''}`.trim());
}

/**
 * GETs HAProxy closed without an answer because its last process left rotation while it was sending the GET
 * again (an L7 retry of a 503): HAProxy 2.6 logs them `<NOSRV> … 503 0 … SC--` with the retries marked `+N`,
 * and the client sees the connection close. Each is HAProxy's, not a hub's: see docs/operations.md.
 */
export function retriesDroppedByHaproxy(log: string): number {
  return [...log.matchAll(/svc_hubs\/<NOSRV> \S+ 503 0 - - SC-- \S+\/\+\d+ \S+ "GET /g)].length;
}

/** How many times HAProxy's log says a backend went down (`hub2 is DOWN`), per backend. */
export function downMarks(log: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const match of log.matchAll(/\b(hub\d) is DOWN\b/g)) {
    const name = match[1] ?? '';
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return counts;
}

/** `/readyz` straight from process `index`: status and parsed body. */
export async function readyzOf(
  cluster: HubCluster,
  index: number,
): Promise<{ status: number; body: { status?: string; reason?: string; nats?: string } }> {
  const probe = new HubClient(cluster.url(index), cluster.caPem, null);
  try {
    const res = await probe.get('/readyz', { timeoutMs: 3_000 });
    let body: { status?: string; reason?: string; nats?: string } = {};
    try {
      body = JSON.parse(res.text) as typeof body;
    } catch {
      body = {};
    }
    return { status: res.status, body };
  } finally {
    probe.close();
  }
}
