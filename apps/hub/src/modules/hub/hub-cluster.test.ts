/**
 * `GET /hub/status`'s `cluster`: hub processes on one PostgreSQL and one NATS (a nats-server of the test's own,
 * so it can be stopped), each with its real node lease in `cluster_nodes`. The embedded cluster of one is in
 * hub-status.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChannelPath, type ClusterStatus } from '@svc/protocol';
import { FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../../platform/clock.js';
import { startTestNatsServer, waitUntil, type TestNatsServer } from '../../testing/nats-server.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

const hubs: TestHub[] = [];
let nats: TestNatsServer | null = null;
let agent: FakeAgent | null = null;
afterEach(async () => {
  agent?.close();
  agent = null;
  // The second process first: the first one owns the schema.
  for (const hub of hubs.splice(0).reverse()) await hub.close();
  await nats?.dispose();
  nats = null;
});

async function clusterOf(t: TestHub): Promise<ClusterStatus & { health: string; time: string }> {
  const res = await t.request('GET', '/api/v2/hub/status');
  expect(res.status, res.text).toBe(200);
  const data = res.json.data as { status: string; time: string; cluster: ClusterStatus };
  return { ...data.cluster, health: data.status, time: data.time };
}

/** Processes of one cluster: one clock (one machine's), one hub key, the test's NATS. */
async function startProcesses(count: number): Promise<TestHub[]> {
  nats = await startTestNatsServer();
  const clock = new ManualClock(new Date('2026-11-29T09:00:00.000Z'));
  const env = {
    SVC_NATS_URL: nats.url,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
  };
  const started: TestHub[] = [];
  for (let i = 0; i < count; i++) {
    const first = started[0];
    const hub = await startTestHub({
      postgresUrl: postgresUrl ?? '',
      clock,
      env,
      listen: i === 1,
      ...(first ? { joinDatabaseOf: first } : {}),
    });
    hubs.push(hub);
    started.push(hub);
    await waitUntil(() => hub.hub.cluster.bus.status().connected, 'connected to NATS');
  }
  return started;
}

describe.runIf(postgresUrl)('GET /hub/status: the cluster', () => {
  it('lists every live process with its lease and agents, and marks the one answering', async () => {
    const [a, b] = (await startProcesses(2)) as [TestHub, TestHub];
    const idA = a.hub.cluster.bus.nodeId;
    const idB = b.hub.cluster.bus.nodeId;
    // A real agent connected to B: B holds it.
    const [identity] = await provisionAgents(b.hub, 1, 'held');
    if (!identity) throw new Error('agent not provisioned');
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(b.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: {},
    });
    await agent.start();
    await waitUntil(async () => (await clusterOf(a)).processes.some((p) => p.agents === 1), 'B holds it');

    const fromA = await clusterOf(a);
    const fromB = await clusterOf(b);

    const now = a.clock.now().getTime();
    const leaseOf = (id: string) => ({
      node_id: id,
      epoch: 1,
      started_at: expect.any(String) as string,
      lease_expires_at: new Date(now + 20_000).toISOString(),
    });
    expect(fromA).toMatchObject({
      node_id: idA,
      nats: 'up',
      nats_reason: null,
      degraded: false,
      health: 'ok',
    });
    expect(fromA.processes).toEqual(
      expect.arrayContaining([
        { ...leaseOf(idA), agents: 0, this_process: true },
        { ...leaseOf(idB), agents: 1, this_process: false },
      ]),
    );
    expect(fromA.processes).toHaveLength(2);
    // B sees the same processes and marks itself.
    expect(fromB.node_id).toBe(idB);
    expect(fromB.processes.map((p) => [p.node_id, p.this_process, p.agents])).toEqual(
      fromA.processes.map((p) => [p.node_id, p.node_id === idB, p.agents]),
    );

    // B leaves cleanly: A's next renewal finds its lease gone, and A lists itself alone.
    await hubs.pop()?.close();
    await waitUntil(async () => (await clusterOf(a)).processes.length === 1, 'B gone from A’s list');
    expect((await clusterOf(a)).processes.map((p) => p.node_id)).toEqual([idA]);
  });

  it('says the bus is down and why, and the hub degraded, until NATS is back', async () => {
    const [a] = (await startProcesses(1)) as [TestHub];
    expect(await clusterOf(a)).toMatchObject({ nats: 'up', degraded: false, health: 'ok' });

    await nats?.stop();
    await waitUntil(() => !a.hub.cluster.bus.status().connected, 'the bus sees NATS gone');
    const down = await clusterOf(a);
    expect(down).toMatchObject({ nats: 'down', degraded: true, health: 'degraded' });
    expect(down.nats_reason).toMatch(/\S/);
    // /readyz says the same.
    expect((await a.request('GET', '/readyz', { key: null })).json).toMatchObject({ status: 'degraded' });
    // This process still lists itself (its lease lives in PostgreSQL, not in NATS).
    expect(down.processes.map((p) => [p.node_id, p.this_process])).toEqual([[down.node_id, true]]);

    await nats?.start();
    await waitUntil(() => a.hub.cluster.bus.status().connected, 'reconnected', 100, 100);
    expect(await clusterOf(a)).toMatchObject({
      nats: 'up',
      nats_reason: null,
      degraded: false,
      health: 'ok',
    });
  });
});
