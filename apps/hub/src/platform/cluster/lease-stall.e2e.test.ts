/**
 * A hub process stalled past its lease and resumed (decision 0053), with real processes: three built hubs on
 * one PostgreSQL database and NATS, leases of 4 s, simulated agents connected to process 1. `kill -STOP` for
 * 8 s: another process takes it for gone and marks its agents offline. `kill -CONT`: it registers again under
 * a new epoch and its agents, still connected to it, are online again within 10 s, as any process answers.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Asset, ExecManyResult } from '@svc/protocol';
import { createHub, parseEnv, silentLogger } from '@svc/hub';
import {
  FleetSimulator,
  provisionAgents,
  startHubCluster,
  type HubCluster,
  type SimulatedAgentIdentity,
} from '@svc/testkit';
import { dataOf, HubClient, sleep, waitFor } from '../../e2e/support.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const agentCount = 4;
const stallMs = 8_000;

let running: { cluster: HubCluster; db: pg.Client } | undefined;
let fleet: FleetSimulator | undefined;
let identities: SimulatedAgentIdentity[] = [];

/** The cluster and a database client, started by beforeAll. */
function started(): { cluster: HubCluster; db: pg.Client } {
  if (!running) throw new Error('the cluster did not start');
  return running;
}

/** The agents as the database has them: status and the holder node's pid. */
async function holders(): Promise<{ id: string; status: string; node: string | null; pid: number | null }[]> {
  const result = await started().db.query<{
    id: string;
    status: string;
    node: string | null;
    pid: number | null;
  }>(
    `select a.id, a.status, a.agent_node as node, n.pid
       from assets a left join cluster_nodes n on n.node_id = a.agent_node
      where a.id = any($1) order by a.id`,
    [identities.map((i) => i.assetId)],
  );
  return result.rows;
}

async function enroll(count: number): Promise<SimulatedAgentIdentity[]> {
  const { cluster } = started();
  const dataDir = `${cluster.workDir}/provisioner`;
  const hub = await createHub({
    config: parseEnv(
      {
        SVC_DATA_DIR: dataDir,
        SVC_DATABASE_URL: cluster.databaseUrl,
        SVC_ENCRYPTION_KEY: cluster.encryptionKey,
        SVC_TLS_MODE: 'disabled',
        SVC_BCRYPT_COST: '4',
        SVC_RATE_LIMIT_ENABLED: 'false',
      },
      dataDir,
    ),
    logger: silentLogger,
  });
  try {
    return await provisionAgents(hub, count, 'stall');
  } finally {
    await hub.close();
  }
}

describe('a hub process stalled past its lease', () => {
  beforeAll(async () => {
    const cluster = await startHubCluster({
      size: 3,
      postgresUrl,
      env: { SVC_CLUSTER_LEASE_SECONDS: '4', SVC_RATE_LIMIT_ENABLED: 'false' },
    });
    const db = new pg.Client({ connectionString: cluster.databaseUrl });
    running = { cluster, db };
    await db.connect();
    identities = await enroll(agentCount);
    fleet = new FleetSimulator({
      origin: cluster.url(1),
      identities,
      ca: cluster.caPem,
      reconnect: false,
      heartbeatIntervalMs: 1_000,
    });
    const started = await fleet.start();
    expect(started.failed).toBe(0);
  }, 180_000);

  afterAll(async () => {
    fleet?.stop();
    if (!running) return;
    const pid = running.cluster.nodes[1]?.pid();
    if (pid) process.kill(pid, 'SIGCONT');
    await running.db.end();
    await running.cluster.close();
  }, 60_000);

  it('gets its agents back online within 10 s of resuming', async () => {
    const { cluster, db } = started();
    const pid = cluster.nodes[1]?.pid() ?? 0;
    expect(pid).toBeGreaterThan(0);
    const all = (test: (h: Awaited<ReturnType<typeof holders>>[number]) => boolean) => async () =>
      (await holders()).every(test) ? true : undefined;
    await waitFor(
      'the agents online on process 1',
      all((h) => h.status === 'online' && h.pid === pid),
    );
    const [{ node } = { node: null }] = await holders();

    process.kill(pid, 'SIGSTOP');
    const stoppedAt = Date.now();
    try {
      // Another process takes its lease for gone and marks its agents offline.
      await waitFor(
        'the agents marked offline by a survivor',
        all((h) => h.status === 'offline'),
        {
          timeoutMs: stallMs + 10_000,
        },
      );
      await sleep(Math.max(0, stallMs - (Date.now() - stoppedAt)));
    } finally {
      process.kill(pid, 'SIGCONT');
    }
    const resumedAt = Date.now();

    await waitFor(
      'the agents online again on process 1',
      all((h) => h.status === 'online' && h.node === node),
      {
        timeoutMs: 10_000,
      },
    );
    const backWithinMs = Date.now() - resumedAt;
    const epoch = await db.query<{ epoch: number }>('select epoch from cluster_nodes where node_id = $1', [
      node,
    ]);
    expect(epoch.rows[0]?.epoch).toBeGreaterThanOrEqual(2);

    expect(fleet?.connectedCount()).toBe(agentCount);

    // Any process answers that they are online.
    const client = new HubClient(cluster.url(0), cluster.caPem, cluster.owner.key);
    for (const { assetId } of identities) {
      const asset = dataOf<Asset>(await client.get(`/api/v2/assets/${assetId}`));
      expect(asset.status).toBe('online');
    }
    expect(backWithinMs).toBeLessThan(10_000);

    // And the other processes reach them again: they take the resumed node's word once it says it is back.
    for (const via of [0, 2]) {
      const other = new HubClient(cluster.url(via), cluster.caPem, cluster.owner.key);
      await waitFor(
        `exec through process ${String(via)} on the resumed process's agents`,
        async () => {
          const outcome = dataOf<ExecManyResult>(
            await other.post('/api/v2/exec', {
              command: 'echo back',
              targets: identities.map((i) => i.assetId),
            }),
          );
          return outcome.summary.ok === agentCount ? true : undefined;
        },
        { timeoutMs: 10_000 },
      );
    }
  }, 120_000);
});
