/**
 * Two whole hubs as two processes of one cluster (decision 0039): one PostgreSQL schema, one in-memory
 * cluster network, each hub listening on its own loopback port with agents connected to one or the other.
 * The REST API of either answers for every agent. Runs where PostgreSQL is (SVC_TEST_DATABASE_URL): SQLite
 * is one process's database.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentChannelPath, type ExecManyResult, type ExecResult } from '@svc/protocol';
import {
  echoExec,
  FakeAgent,
  provisionAgents,
  type SimulatedAgentIdentity,
  type TestHub,
} from '@svc/testkit';
import { startMemoryCluster, until, type MemoryCluster } from '../testing/memory-cluster.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.skipIf(!postgresUrl)('two hubs on one database and one cluster bus', () => {
  let cluster: MemoryCluster;
  let hubs: TestHub[];
  let agents: FakeAgent[];
  let ids: SimulatedAgentIdentity[];
  /** The owner key valid on both (the last start rotated it). */
  let key: string;

  async function connect(hub: TestHub, identity: SimulatedAgentIdentity): Promise<FakeAgent> {
    const agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: { 'exec.run': echoExec },
    });
    agents.push(agent);
    await agent.start();
    return agent;
  }

  beforeEach(async () => {
    agents = [];
    cluster = await startMemoryCluster(postgresUrl ?? '');
    hubs = cluster.hubs;
    const a = await cluster.startHub('a');
    const b = await cluster.startHub('b');
    key = b.ownerKey;
    ids = await provisionAgents(a.hub, 3, 'two');
  });

  afterEach(async () => {
    for (const agent of agents) agent.close();
    await cluster.close();
  });

  it('runs exec from either hub on an agent the other holds, and a fan-out over both', async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    await connect(a, ids[0]!);
    await connect(b, ids[1]!);
    await until(
      () => a.hub.gateway.connectedCount() === 2 && b.hub.gateway.connectedCount() === 2,
      'both views',
    );

    const one = await b.request('POST', `/api/v2/assets/${ids[0]!.assetId}/exec`, {
      key,
      body: { command: 'hostname' },
    });
    expect(one.status).toBe(200);
    expect(one.json.data as ExecResult).toMatchObject({ status: 'ok', stdout: 'hostname\n' });

    const asset = await b.request('GET', `/api/v2/assets/${ids[0]!.assetId}`, { key });
    expect(asset.json.data).toMatchObject({ status: 'online' });

    const many = await a.request('POST', '/api/v2/exec', {
      key,
      body: { targets: ids.map((i) => i.assetId), command: 'uptime' },
    });
    expect(many.status).toBe(200);
    const results = new Map((many.json.data as ExecManyResult).results.map((r) => [r.asset_id, r]));
    expect(results.get(ids[0]!.assetId)).toMatchObject({ status: 'ok', stdout: 'uptime\n' });
    expect(results.get(ids[1]!.assetId)).toMatchObject({ status: 'ok', stdout: 'uptime\n' });
    expect(results.get(ids[2]!.assetId)).toMatchObject({ status: 'offline' });
  });

  it("keeps the other hub's agents online when a hub stops, and serves its agents once they move", async () => {
    const [a, b] = hubs as [TestHub, TestHub];
    const first = await connect(a, ids[0]!);
    await connect(b, ids[1]!);
    await until(() => b.hub.gateway.isConnected(ids[0]!.assetId), 'the view on b');

    // Process a stops: its agent goes offline, b's stays online.
    await cluster.stop(a);
    await first.closed();
    await until(() => !b.hub.gateway.isConnected(ids[0]!.assetId), 'the view on b');
    const status = async (id: string) =>
      ((await b.request('GET', `/api/v2/assets/${id}`, { key })).json.data as { status: string }).status;
    expect(await status(ids[0]!.assetId)).toBe('offline');
    expect(await status(ids[1]!.assetId)).toBe('online');
    const refused = await b.request('POST', `/api/v2/assets/${ids[0]!.assetId}/exec`, {
      key,
      body: { command: 'hostname' },
    });
    expect(refused.status).toBe(409);

    // The agent reconnects to the survivor.
    await connect(b, ids[0]!);
    expect(await status(ids[0]!.assetId)).toBe('online');
    const again = await b.request('POST', `/api/v2/assets/${ids[0]!.assetId}/exec`, {
      key,
      body: { command: 'hostname' },
    });
    expect(again.json.data as ExecResult).toMatchObject({ status: 'ok' });
  });
});
