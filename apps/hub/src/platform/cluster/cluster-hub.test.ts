/**
 * Two hubs on one in-memory cluster network, as two processes on one NATS: events reach the other process's
 * cluster-reach subscribers only, /readyz says degraded without the bus, /metrics counts nodes and dropped messages. The
 * embedded default (no cluster given) stays a cluster of one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTestHub, type TestHub } from '@svc/testkit';
import type { HubEvent } from '../event-bus.js';
import { createMemoryClusterNetwork } from './cluster-bus.js';
import { clusterEventsSubject } from '../event-bus.js';
import { createSingleNodeRegistry } from './node-registry.js';
import { startTestNatsServer, waitUntil } from '../../testing/nats-server.js';

const hubs: TestHub[] = [];
afterEach(async () => {
  for (const hub of hubs.splice(0)) await hub.close();
});

async function twoProcesses() {
  const network = createMemoryClusterNetwork();
  const started: TestHub[] = [];
  for (const nodeId of ['node_a', 'node_b']) {
    const bus = network.join(nodeId);
    const hub = await startTestHub({ cluster: { bus, registry: createSingleNodeRegistry(nodeId) } });
    hubs.push(hub);
    started.push(hub);
  }
  return { network, a: started[0] as TestHub, b: started[1] as TestHub };
}

const delivered = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('hub processes on one cluster bus', () => {
  it('hands another process’s events to cluster-reach subscribers only', async () => {
    const { a, b } = await twoProcesses();
    const cluster: HubEvent[] = [];
    const origin: HubEvent[] = [];
    b.hub.events.subscribe((e) => cluster.push(e), { types: ['asset.created'], reach: 'cluster' });
    b.hub.events.subscribe((e) => origin.push(e), { types: ['asset.created'] });
    const asset = await a.createAsset({ name: 'made-on-a' });
    await delivered();
    expect(cluster.map((e) => e.data)).toEqual([expect.objectContaining({ asset_id: asset.id })]);
    expect(origin).toEqual([]);
  });

  it('stays in the balancer as degraded while the bus is down, and says why in one word', async () => {
    const { network, a } = await twoProcesses();
    expect((await a.request('GET', '/readyz', { key: null })).json).toEqual({ status: 'ready', nats: 'ok' });
    network.setDown(true);
    const down = await a.request('GET', '/readyz', { key: null });
    expect(down.status).toBe(200);
    expect(down.json).toEqual({ status: 'degraded', reason: 'nats', nats: 'down' });
    network.setDown(false);
    expect((await a.request('GET', '/readyz', { key: null })).json).toEqual({ status: 'ready', nats: 'ok' });
  });

  it('counts the live nodes and the messages it dropped in /metrics', async () => {
    const { network, a } = await twoProcesses();
    const forger = network.join('node_forger');
    forger.publish(clusterEventsSubject, { id: 'evt_1', type: 'asset.created', ts: 'soon', data: {} });
    await delivered();
    const metrics = await a.request('GET', '/metrics');
    expect(metrics.text).toContain('svc_hub_cluster_nodes 1');
    expect(metrics.text).toContain('svc_hub_cluster_messages_dropped_total 1');
  });
});

describe('the embedded default', () => {
  it('is a cluster of one that reports no bus on /readyz', async () => {
    const t = await startTestHub();
    hubs.push(t);
    expect(t.hub.cluster.bus.shared).toBe(false);
    expect([...t.hub.cluster.registry.liveNodes()]).toEqual([t.hub.cluster.bus.nodeId]);
    expect((await t.request('GET', '/readyz', { key: null })).json).toEqual({ status: 'ready' });
  });
});

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.runIf(postgresUrl)('a hub with SVC_NATS_URL', () => {
  it('joins NATS and registers its lease in PostgreSQL, and leaves on close', async () => {
    const nats = await startTestNatsServer();
    try {
      const t = await startTestHub({
        postgresUrl: postgresUrl ?? '',
        env: { SVC_NATS_URL: `nats://svc:pw@127.0.0.1:${nats.port}` },
      });
      hubs.push(t);
      const { bus, registry } = t.hub.cluster;
      expect(bus.shared).toBe(true);
      await waitUntil(() => bus.status().connected, 'connected to NATS');
      expect(registry.isLive(bus.nodeId)).toBe(true);
      const rows = await t.hub.database.db.selectFrom('cluster_nodes').select(['node_id', 'pid']).execute();
      expect(rows).toEqual([{ node_id: bus.nodeId, pid: process.pid }]);
      expect((await t.request('GET', '/readyz', { key: null })).json).toEqual({
        status: 'ready',
        nats: 'ok',
      });
    } finally {
      await nats.dispose();
    }
  });
});
