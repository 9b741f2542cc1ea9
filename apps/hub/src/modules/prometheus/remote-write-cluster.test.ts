/**
 * Remote write in a cluster: two hub processes on one PostgreSQL database and NATS; only the process holding
 * the sender's lease sends, and both answer the same status. PostgreSQL only (SVC_TEST_DATABASE_URL).
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, describe, expect, it } from 'vitest';
import type { PrometheusSettings } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import { ManualClock } from '../../platform/clock.js';
import { metricSample } from '../../testing/metric-sample.js';
import { startTestNatsServer, waitUntil, type TestNatsServer } from '../../testing/nats-server.js';

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.runIf(postgresUrl)('Prometheus remote write across processes', () => {
  const hubs: TestHub[] = [];
  let nats: TestNatsServer | null = null;
  let server: http.Server | null = null;

  afterAll(async () => {
    for (const hub of hubs.splice(0).reverse()) await hub.close();
    await nats?.dispose();
    const running = server;
    if (running) {
      await new Promise<void>((resolve) => {
        running.close(() => {
          resolve();
        });
      });
    }
  });

  it('is sent by the one process holding the lease; both processes show its status', async () => {
    let requests = 0;
    server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests += 1;
        res.statusCode = 204;
        res.end();
      });
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;

    nats = await startTestNatsServer();
    const clock = new ManualClock(new Date('2026-11-29T09:00:00.000Z'));
    const env = {
      SVC_NATS_URL: nats.url,
      SVC_ENCRYPTION_KEY: randomBytes(32).toString('hex'),
      SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
      SVC_OUTBOUND_ALLOW_INSECURE: 'true',
    };
    for (let i = 0; i < 2; i++) {
      const first = hubs[0];
      const hub = await startTestHub({
        postgresUrl: postgresUrl ?? '',
        clock,
        env,
        remoteWrite: { intervalMs: 0, readLagMs: 1_000 },
        ...(first ? { joinDatabaseOf: first } : {}),
      });
      hubs.push(hub);
      await waitUntil(() => hub.hub.cluster.bus.status().connected, 'connected to NATS');
    }
    const [a, b] = hubs as [TestHub, TestHub];
    const holders = hubs.filter((h) => h.hub.cluster.leases.holds('prometheus_remote_write'));
    expect(holders).toHaveLength(1);

    const put = await b.request('PUT', '/api/v2/integrations/prometheus/remote-write', {
      body: { enabled: true, url: `http://127.0.0.1:${String(port)}/api/v1/write`, auth: 'none' },
    });
    expect(put.status, put.text).toBe(200);
    const asset = await a.request('POST', '/api/v2/assets', { body: { name: 'shared' } });
    const assetId = (asset.json.data as { id: string }).id;
    b.hub.metrics.store.add(assetId, [metricSample(clock.now().getTime())]);
    await b.hub.metrics.store.flush();
    clock.advance(2_000);
    await Promise.all(hubs.map((h) => h.hub.services.remoteWrite.sendNow()));
    await Promise.all(hubs.map((h) => h.hub.services.remoteWrite.sendNow()));

    expect(requests).toBe(1);
    for (const hub of hubs) {
      const res = await hub.request('GET', '/api/v2/integrations/prometheus');
      expect((res.json.data as PrometheusSettings).status).toMatchObject({
        sent_samples: 1,
        keeping_up: true,
      });
    }
  });
});
