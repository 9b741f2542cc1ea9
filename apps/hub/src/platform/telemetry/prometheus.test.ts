import { describe, expect, it } from 'vitest';
import { createPrometheusTelemetry } from './prometheus.js';

describe('Prometheus telemetry', () => {
  it('exports what it is fed, with bounded labels, and the figures its sources hold at scrape time', async () => {
    const telemetry = createPrometheusTelemetry();
    let drops = 2;
    telemetry.setSources({
      agentsConnected: () => 3,
      eventSubscribers: () => 4,
      eventDrops: () => drops,
      databaseBytes: () => Promise.resolve(8192),
      databasePool: () => ({ total: 5, idle: 4, waiting: 1 }),
      clusterNodes: () => 3,
      clusterDrops: () => drops * 10,
      lease: {
        epoch: () => 2,
        holds: () => Promise.resolve(drops < 5),
        refusedByKind: () => new Map([['agent online', drops]]),
      },
    });
    telemetry.webhookDelivery('delivered');
    telemetry.webhookDelivery('failed');
    telemetry.webhookDelivery('failed');
    telemetry.connectorCall('pve', 'ok');
    telemetry.connectorCall('pve', 'error');
    telemetry.httpRequest({ route: '/api/v2/whoami', method: 'BREW', status: 405, seconds: 0.001 });

    const first = (await telemetry.render()).body;
    drops = 5;
    const second = (await telemetry.render()).body;

    expect(first).toContain('svc_hub_webhook_deliveries_total{outcome="delivered"} 1');
    expect(first).toContain('svc_hub_webhook_deliveries_total{outcome="failed"} 2');
    expect(first).toContain('svc_hub_connector_calls_total{kind="pve",outcome="ok"} 1');
    expect(first).toContain('svc_hub_connector_calls_total{kind="pve",outcome="error"} 1');
    // A method nobody registered becomes `other`: a client cannot mint label values.
    expect(first).toContain(
      'svc_hub_http_requests_total{route="/api/v2/whoami",method="other",status="405"} 1',
    );
    expect(first).toContain('svc_hub_agents_connected 3');
    expect(first).toContain('svc_hub_event_stream_subscribers 4');
    expect(first).toContain('svc_hub_event_stream_drops_total 2');
    expect(second).toContain('svc_hub_event_stream_drops_total 5');
    expect(first).toContain('svc_hub_database_size_bytes 8192');
    expect(first).toContain('svc_hub_cluster_nodes 3');
    expect(first).toContain('svc_hub_cluster_messages_dropped_total 20');
    expect(second).toContain('svc_hub_cluster_messages_dropped_total 50');
    expect(first).toContain('svc_hub_database_pool_connections{state="waiting"} 1');
    expect(first).toContain('svc_hub_cluster_fenced_writes_refused_total{kind="agent online"} 2');
    expect(second).toContain('svc_hub_cluster_fenced_writes_refused_total{kind="agent online"} 5');
    expect(first).toContain('svc_hub_cluster_lease_epoch 2');
    expect(first).toContain('svc_hub_cluster_lease_held 1');
    expect(second).toContain('svc_hub_cluster_lease_held 0');
  });

  it('keeps each hub’s counts apart, sharing only the process figures', async () => {
    const a = createPrometheusTelemetry();
    const b = createPrometheusTelemetry();
    a.webhookDelivery('failed');

    const text = (await b.render()).body;

    expect(text).not.toContain('svc_hub_webhook_deliveries_total{');
    expect(text).toContain('svc_hub_process_cpu_user_seconds_total');
  });

  it('reports the event loop lag since the previous scrape: a stalled loop shows in its p99 and max', async () => {
    const telemetry = createPrometheusTelemetry();
    const gauge = (text: string, name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name} `));
      return line === undefined ? Number.NaN : Number(line.slice(name.length + 1));
    };
    await telemetry.render(); // starts a fresh window
    // Node's delay histogram records nothing for the first interval after a reset: let one tick pass.
    await new Promise((r) => setTimeout(r, 50));
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // a synchronous stall, as a fan-out that never yields would make
    }
    await new Promise((r) => setTimeout(r, 30));
    const stalled = (await telemetry.render()).body;
    await new Promise((r) => setTimeout(r, 200));
    const calm = (await telemetry.render()).body;

    expect(gauge(stalled, 'svc_hub_nodejs_eventloop_lag_max_seconds')).toBeGreaterThan(0.25);
    expect(gauge(stalled, 'svc_hub_nodejs_eventloop_lag_p99_seconds')).toBeGreaterThan(0.25);
    // Each scrape starts a new window, so the stall is gone from the next one.
    expect(gauge(calm, 'svc_hub_nodejs_eventloop_lag_p99_seconds')).toBeLessThan(0.25);
  });
});
