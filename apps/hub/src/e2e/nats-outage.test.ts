/**
 * Service without NATS (issue 29, decision 0054): two hub processes (the built hub) on one PostgreSQL database
 * and a nats-server of the test's own, which the test stops and starts again. Agents (the testkit's fake agent,
 * speaking the real channel) are held one set by each process.
 *
 * While NATS is down each process stays in the balancer (`/readyz` 200 `degraded`), serves what needs only the
 * database, and runs commands on the agents it holds; a call for an agent another process holds answers 503
 * `cluster_unavailable` with Retry-After, never 409 `asset_offline`, also for an agent that connected to the
 * other process during the outage. When NATS is back everything is as before without a restart: `/readyz` says
 * `ready`, commands reach every agent again, and each process knows which agents the other took and lost
 * meanwhile. One cluster serves every case, in order.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  ApiKeyCreated,
  Asset,
  EnrollmentTokenCreated,
  EnrollResponse,
  ExecManyResult,
  ExecResult,
  Group,
} from '@svc/protocol';
import { echoExec, FakeAgent, startHubCluster, type HubCluster } from '@svc/testkit';
import { dataOf, HubClient, waitFor } from './support.js';

let cluster: HubCluster;
let api: HubClient[] = [];
const agents: FakeAgent[] = [];
/** Asset ids: `held[i]` are the agents process i holds from the start. */
const held: string[][] = [[], []];

const client = (index: number): HubClient => {
  const c = api[index];
  if (!c) throw new Error(`no client for process ${String(index)}`);
  return c;
};

async function enroll(name: string): Promise<EnrollResponse> {
  const token = dataOf<EnrollmentTokenCreated>(
    await client(0).post('/api/v2/enrollment-tokens', { name: `token ${name}`, max_uses: 1 }),
    201,
  );
  const enrolled = await client(0).post(
    '/api/v1/enroll',
    { token: token.token, hostname: name },
    { key: null },
  );
  return dataOf<EnrollResponse>(enrolled, 201);
}

/** An agent enrolled and connected straight to process `index`. */
async function connectAgent(index: number, name: string): Promise<{ assetId: string; agent: FakeAgent }> {
  const enrolled = await enroll(name);
  const node = cluster.nodes[index];
  if (!node) throw new Error(`no process ${String(index)}`);
  const agent = new FakeAgent({
    url: `wss://127.0.0.1:${String(node.httpsPort)}${enrolled.channel_path}`,
    credential: enrolled.credential,
    ca: cluster.caPem,
    hello: { hostname: name },
    handlers: { 'exec.run': echoExec },
  });
  agents.push(agent);
  await agent.start();
  return { assetId: enrolled.asset_id, agent };
}

const exec = (index: number, assetId: string) =>
  client(index).post(`/api/v2/assets/${assetId}/exec`, { command: 'echo hi', timeout: 10 });

async function readyz(index: number): Promise<{ status: number; json: unknown }> {
  const answer = await client(index).get('/readyz', { key: null });
  return { status: answer.status, json: answer.json };
}

function retryAfter(headers: IncomingHttpHeaders): string | undefined {
  return headers['retry-after'];
}

beforeAll(async () => {
  cluster = await startHubCluster({
    size: 2,
    ownNats: true,
    env: { SVC_RATE_LIMIT_ENABLED: 'false' },
  });
  api = [0, 1].map((i) => new HubClient(cluster.url(i), cluster.caPem, cluster.owner.key));
  for (const index of [0, 1]) {
    for (const n of [0, 1]) {
      const { assetId } = await connectAgent(index, `held-by-${String(index)}-${String(n)}`);
      held[index]?.push(assetId);
    }
  }
  // Both processes see every agent: a command through either reaches each of them.
  for (const index of [0, 1]) {
    for (const assetId of held.flat()) {
      await waitFor(`process ${String(index)} reaching ${assetId}`, async () =>
        (await exec(index, assetId)).status === 200 ? true : undefined,
      );
    }
  }
}, 180_000);

afterAll(async () => {
  for (const agent of agents) agent.close();
  for (const c of api) c.close();
  await cluster.close();
}, 60_000);

describe('with NATS stopped', () => {
  const heldBy = (index: number, n = 0): string => {
    const id = held[index]?.[n];
    if (!id) throw new Error('no such agent');
    return id;
  };

  it('every process answers /readyz 200 degraded, and stays in the balancer', async () => {
    await cluster.nats?.stop();
    for (const index of [0, 1]) {
      const answer = await waitFor(`process ${String(index)} degraded`, async () => {
        const r = await readyz(index);
        return r.status !== 200 || (r.json as { status?: string }).status !== 'ready' ? r : undefined;
      });
      expect(answer).toEqual({
        status: 200,
        json: { status: 'degraded', reason: 'nats', nats: 'down' },
      });
    }
  });

  it('serves reads and writes that need only the database', async () => {
    const group = dataOf<Group>(
      await client(1).post('/api/v2/groups', { name: 'made during the outage' }),
      201,
    );
    const seen = dataOf<Group>(await client(0).get(`/api/v2/groups/${group.id}`));
    expect(seen.name).toBe('made during the outage');
    const assets = dataOf<Asset[]>(await client(0).get('/api/v2/assets?limit=50'));
    expect(assets.map((a) => a.id)).toEqual(expect.arrayContaining(held.flat()));
    const key = dataOf<ApiKeyCreated>(
      await client(0).post('/api/v2/keys', { name: 'made during the outage', role: 'viewer', scopes: ['*'] }),
      201,
    );
    const withKey = client(1).withKey(key.raw_key);
    expect((await withKey.get(`/api/v2/groups/${group.id}`)).status).toBe(200);
    withKey.close();
  });

  it('runs commands on the agents the answering process holds', async () => {
    const result = dataOf<ExecResult>(await exec(0, heldBy(0)));
    expect(result).toMatchObject({ status: 'ok', stdout: 'echo hi\n' });
    expect(dataOf<ExecResult>(await exec(1, heldBy(1))).status).toBe('ok');
  });

  it('answers 503 cluster_unavailable with Retry-After for an agent another process holds, never 409', async () => {
    const answer = await exec(0, heldBy(1));
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ error: 'cluster_unavailable', status: 503 });
    expect((answer.json as { message: string }).message).toMatch(/cannot reach each other/);
    expect(retryAfter(answer.headers)).toBe('5');
    // The asset is still online, as the database has it: nothing contradicts the 503.
    const asset = dataOf<Asset>(await client(0).get(`/api/v2/assets/${heldBy(1)}`));
    expect(asset.status).toBe('online');
  });

  it('gives each fan-out target its own result: run here, cluster_unavailable for the other process', async () => {
    const many = dataOf<ExecManyResult>(
      await client(1).post('/api/v2/exec', {
        targets: [heldBy(1), heldBy(0), heldBy(1, 1)],
        command: 'echo many',
        timeout: 10,
      }),
    );
    expect(many.results.map((r) => r.status)).toEqual(['ok', 'error', 'ok']);
    expect(many.results[1]?.error).toMatch(/^cluster_unavailable: /);
    expect(many.summary).toMatchObject({ total: 3, ok: 2, offline: 0, error: 1 });
  });

  it('answers 503, not 409, for an agent that connected to the other process during the outage', async () => {
    const { assetId } = await connectAgent(1, 'joined-during-outage');
    held[1]?.push(assetId);
    await waitFor('the new agent online in the database', async () => {
      const asset = dataOf<Asset>(await client(0).get(`/api/v2/assets/${assetId}`));
      return asset.status === 'online' ? true : undefined;
    });
    const answer = await exec(0, assetId);
    expect(answer.status).toBe(503);
    expect(answer.json).toMatchObject({ error: 'cluster_unavailable' });
    expect(retryAfter(answer.headers)).toBe('5');
    expect(dataOf<ExecResult>(await exec(1, assetId)).status).toBe('ok');
  });
});

describe('when NATS is back', () => {
  it('recovers without a restart: ready, and every agent reached through either process', async () => {
    // An agent of process 1 that goes while the bus is down: process 0 must learn it when the bus is back.
    const leaving = agents[3];
    const leavingId = held[1]?.[1];
    if (!leaving || !leavingId) throw new Error('no agent to leave');
    leaving.close();
    held[1] = (held[1] ?? []).filter((id) => id !== leavingId);
    await waitFor('the leaving agent offline in the database', async () => {
      const asset = dataOf<Asset>(await client(0).get(`/api/v2/assets/${leavingId}`));
      return asset.status === 'offline' ? true : undefined;
    });

    const started = Date.now();
    await cluster.nats?.start();
    for (const index of [0, 1]) {
      await waitFor(
        `process ${String(index)} ready again`,
        async () => {
          const r = await readyz(index);
          return r.status === 200 && (r.json as { status?: string }).status === 'ready' ? true : undefined;
        },
        { timeoutMs: 20_000 },
      );
    }
    // Including the agent that joined process 1 during the outage, which process 0 never heard of.
    for (const index of [0, 1]) {
      for (const assetId of held.flat()) {
        const result = await waitFor(
          `process ${String(index)} reaching ${assetId} again`,
          async () => {
            const answer = await exec(index, assetId);
            return answer.status === 200 ? (answer.json as { data: ExecResult }).data : undefined;
          },
          { timeoutMs: 20_000, intervalMs: 250 },
        );
        expect(result.status).toBe('ok');
      }
    }
    const recoveredMs = Date.now() - started;
    expect(recoveredMs).toBeLessThan(30_000);
    // The agent that left during the outage is offline everywhere, not "held" by a process that lost it.
    const gone = await exec(0, leavingId);
    expect(gone.status).toBe(409);
    expect(gone.json).toMatchObject({ error: 'asset_offline' });
  }, 90_000);
});
