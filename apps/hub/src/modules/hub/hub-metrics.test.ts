import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { agentChannelPath } from '@svc/protocol';
import { echoExec, FakeAgent, provisionAgents, startTestHub, type TestHub } from '@svc/testkit';
import { startTestNatsServer, type TestNatsServer } from '../../testing/nats-server.js';

let t: TestHub | null = null;
let agent: FakeAgent | null = null;
let nats: TestNatsServer | null = null;
afterEach(async () => {
  agent?.close();
  agent = null;
  await t?.close();
  t = null;
  await nats?.dispose();
  nats = null;
});

/** The value of one sample line (`name{labels} value`), or null when it is not in the text. */
function sample(text: string, series: string): number | null {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? null : Number(line.slice(series.length + 1));
}

async function until(check: () => Promise<boolean>, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describe('GET /metrics', () => {
  it('is closed without the hub:metrics scope, open to a key holding it', async () => {
    t = await startTestHub();
    const scraper = await t.createKey({ role: 'viewer', scopes: ['hub:metrics'] });
    const reader = await t.createKey({ role: 'admin', scopes: ['hub:read', 'assets:read'] });

    const anonymous = await t.request('GET', '/metrics', { key: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.text).not.toContain('svc_hub_');
    const refused = await t.request('GET', '/metrics', { key: reader.raw_key });
    expect(refused.status).toBe(403);
    expect(refused.json.error).toBe('insufficient_scope');

    const res = await t.request('GET', '/metrics', { key: scraper.raw_key });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.text).toContain('svc_hub_process_resident_memory_bytes');
  });

  it('counts requests by route template and status, never by raw URL', async () => {
    t = await startTestHub();
    const asset = await t.createAsset({ name: 'metered' });
    expect((await t.request('GET', `/api/v2/assets/${asset.id}`)).status).toBe(200);
    expect((await t.request('GET', `/api/v2/assets/${asset.id}`)).status).toBe(200);
    expect((await t.request('GET', '/api/v2/assets/ast_doesnotexist0000000000')).status).toBe(404);
    expect((await t.request('GET', '/api/v2/no/such/path/abc123')).status).toBe(404);

    const text = (await t.request('GET', '/metrics')).text;

    expect(
      sample(text, 'svc_hub_http_requests_total{route="/api/v2/assets/{id}",method="GET",status="200"}'),
    ).toBe(2);
    expect(
      sample(text, 'svc_hub_http_requests_total{route="/api/v2/assets/{id}",method="GET",status="404"}'),
    ).toBe(1);
    expect(sample(text, 'svc_hub_http_requests_total{route="other",method="GET",status="404"}')).toBe(1);
    expect(
      sample(text, 'svc_hub_http_request_duration_seconds_count{route="/api/v2/assets/{id}",method="GET"}'),
    ).toBe(3);
    expect(text).not.toContain(asset.id);
    expect(text).not.toContain('abc123');
  });

  it('counts agents, their frames and bytes, fan-outs, and the database; promtool accepts the output', async () => {
    t = await startTestHub({ listen: true });
    const hub = t;
    const [identity] = await provisionAgents(hub.hub, 1, 'prom');
    if (!identity) throw new Error('agent not provisioned');
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: { 'exec.run': echoExec },
    });
    await agent.start();
    const scrape = async () => (await hub.request('GET', '/metrics')).text;
    await until(async () => sample(await scrape(), 'svc_hub_agents_connected') === 1);

    const run = await hub.request('POST', '/api/v2/exec', {
      body: { targets: [identity.assetId], command: 'uptime' },
    });
    expect(run.status).toBe(200);
    const text = await scrape();

    expect(sample(text, 'svc_hub_agents_connected')).toBe(1);
    expect(sample(text, 'svc_hub_agent_frames_total{direction="in"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'svc_hub_agent_frames_total{direction="out"}')).toBeGreaterThanOrEqual(2);
    expect(sample(text, 'svc_hub_agent_frame_bytes_total{direction="in"}')).toBeGreaterThan(100);
    expect(sample(text, 'svc_hub_exec_fanout_targets_count')).toBe(1);
    expect(sample(text, 'svc_hub_exec_fanout_targets_sum')).toBe(1);
    expect(sample(text, 'svc_hub_event_stream_subscribers')).toBe(0);
    expect(sample(text, 'svc_hub_event_stream_drops_total')).toBe(0);
    expect(sample(text, 'svc_hub_database_size_bytes')).toBeGreaterThan(4096);
    expect(text).toContain('svc_hub_nodejs_eventloop_lag_seconds');

    // Every series the Grafana dashboard queries is one the hub exports.
    const dashboard = fs.readFileSync(
      new URL('../../../../../docs/grafana-dashboard.json', import.meta.url),
      'utf8',
    );
    const queried = new Set(
      [...dashboard.matchAll(/svc_hub_[a-z0-9_]+/g)].map((m) => m[0].replace(/_(bucket|count|sum)$/, '')),
    );
    expect(queried.size).toBeGreaterThan(10);
    // The cluster's series are exported only by a process with a node lease: checked below.
    const single = [...queried].filter((name) => !name.startsWith('svc_hub_cluster_'));
    expect(single.filter((name) => !text.includes(`# TYPE ${name} `))).toEqual([]);

    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });
});

const postgresUrl = process.env.SVC_TEST_DATABASE_URL;

describe.runIf(postgresUrl)('GET /metrics of a process with a node lease (SVC_NATS_URL)', () => {
  it('exports its lease, and counts by kind the writes the fence refused once the lease expired', async () => {
    nats = await startTestNatsServer();
    // A long lease (renewed every 30 s of real time): the test's clock alone makes it expire.
    t = await startTestHub({
      postgresUrl: postgresUrl ?? '',
      listen: true,
      env: { SVC_NATS_URL: nats.url, SVC_CLUSTER_LEASE_SECONDS: '300' },
    });
    const hub = t;
    const scrape = async () => (await hub.request('GET', '/metrics')).text;
    const [identity] = await provisionAgents(hub.hub, 1, 'fenced');
    if (!identity) throw new Error('agent not provisioned');
    const held = await scrape();
    expect(sample(held, 'svc_hub_cluster_lease_epoch')).toBe(1);
    expect(sample(held, 'svc_hub_cluster_lease_held')).toBe(1);
    expect(held).not.toContain('svc_hub_cluster_fenced_writes_refused_total{');

    // A stall past the lease, as the clock sees it: the agent that connects now is not written online.
    hub.clock.advance(301_000);
    agent = new FakeAgent({
      url: `ws://127.0.0.1:${String(hub.servers?.httpPort)}${agentChannelPath}`,
      credential: identity.credential,
      handlers: {},
    });
    await agent.start();
    const series = 'svc_hub_cluster_fenced_writes_refused_total{kind="agent online"}';
    await until(async () => sample(await scrape(), series) === 1);
    const text = await scrape();

    expect(sample(text, 'svc_hub_cluster_lease_held')).toBe(0);
    expect(sample(text, 'svc_hub_cluster_lease_epoch')).toBe(1);
    // The cluster's series the Grafana dashboard queries are all exported here.
    const dashboard = fs.readFileSync(
      new URL('../../../../../docs/grafana-dashboard.json', import.meta.url),
      'utf8',
    );
    const clusterSeries = new Set([...dashboard.matchAll(/svc_hub_cluster_[a-z0-9_]+/g)].map((m) => m[0]));
    expect(clusterSeries.size).toBeGreaterThanOrEqual(3);
    expect([...clusterSeries].filter((name) => !text.includes(`# TYPE ${name} `))).toEqual([]);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(check.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
    expect(`${check.stdout}${check.stderr}`).toBe('');
  });
});
