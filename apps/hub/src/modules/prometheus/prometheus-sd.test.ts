/**
 * Prometheus HTTP service discovery as Prometheus meets it: Debian's real `prometheus`, configured with an
 * `http_sd_configs` entry pointing at the hub over HTTPS (the hub's built-in CA as its ca_file, a key scoped
 * `prometheus:sd` and restricted to two assets as its bearer), lists exactly those assets as targets with
 * their labels.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '@svc/hub';
import { startPrometheus, startTestHub, tlsRequest, type PrometheusServer, type TestHub } from '@svc/testkit';

interface ActiveTarget {
  labels: Record<string, string>;
  discoveredLabels: Record<string, string>;
  scrapeUrl: string;
}

describe('Prometheus HTTP service discovery', () => {
  let t: TestHub;
  let prometheus: PrometheusServer | null = null;
  const ids: Record<string, string> = {};
  let sdKey = '';

  async function created(url: string, body: unknown): Promise<Record<string, unknown>> {
    const res = await t.request('POST', url, { body });
    expect(res.status, res.text).toBe(201);
    return res.json.data as Record<string, unknown>;
  }

  beforeAll(async () => {
    t = await startTestHub({
      env: { SVC_TLS_MODE: 'auto' },
      listen: true,
      injectAsHttps: true,
      clock: new ManualClock(new Date()),
    });
    for (const [name, fields] of Object.entries({
      web1: { ip_addresses: ['127.0.0.1'], platform: 'linux' },
      db1: { hostname: 'localhost', platform: 'freebsd', tags: ['prometheus.port:9187'] },
      secret1: { ip_addresses: ['127.0.0.2'] },
    })) {
      ids[name] = (await created('/api/v2/assets', { name, ...fields })).id as string;
    }
    const web = await created('/api/v2/groups', { name: 'web', asset_ids: [ids.web1, ids.secret1] });
    const res = await t.request('PUT', '/api/v2/integrations/prometheus/exporter', {
      body: { default_port: 9100, group_ports: [{ group_id: web.id, port: 9200 }] },
    });
    expect(res.status, res.text).toBe(200);
    const key = await created('/api/v2/keys', {
      name: 'prometheus',
      role: 'viewer',
      scopes: ['prometheus:sd'],
      allowed_assets: [ids.web1, ids.db1],
    });
    sdKey = key.raw_key as string;
  });

  afterAll(async () => {
    await prometheus?.stop();
    await t.close();
  });

  it('answers the http_sd_config format to the scoped key: a bare JSON array, only its allowed assets', async () => {
    const res = await t.request('GET', '/api/v2/integrations/prometheus/targets', { key: sdKey });
    expect(res.status).toBe(200);
    expect(String(res.headers['content-type'])).toMatch(/^application\/json/);
    const groups = JSON.parse(res.text) as { targets: string[]; labels: Record<string, string> }[];
    expect(groups).toEqual([
      {
        targets: ['localhost:9187'],
        labels: { asset_id: ids.db1, name: 'db1', groups: '', platform: 'freebsd', status: 'unknown' },
      },
      {
        targets: ['127.0.0.1:9200'],
        labels: { asset_id: ids.web1, name: 'web1', groups: ',web,', platform: 'linux', status: 'unknown' },
      },
    ]);
  });

  it('refuses no key (401) and a key without the scope (403)', async () => {
    const none = await t.request('GET', '/api/v2/integrations/prometheus/targets', { key: null });
    expect(none.status).toBe(401);
    const other = await t.request('POST', '/api/v2/keys', {
      body: { name: 'reader', role: 'viewer', scopes: ['assets:read'] },
    });
    const res = await t.request('GET', '/api/v2/integrations/prometheus/targets', {
      key: (other.json.data as { raw_key: string }).raw_key,
    });
    expect(res.status).toBe(403);
  });

  it("Debian's prometheus discovers the allowed assets as targets with their labels", async () => {
    const port = t.servers?.httpsPort;
    if (port == null) throw new Error('no HTTPS port');
    // The CA is public: Prometheus trusts it through its file, as an operator would set it up.
    const ca = (await tlsRequest(`https://localhost:${String(port)}/api/v1/tls/ca.crt`, { insecure: true }))
      .body;
    expect(ca).toContain('BEGIN CERTIFICATE');
    prometheus = await startPrometheus({
      files: { 'hub-ca.crt': ca, 'sd-key': sdKey },
      config: [
        'global:',
        '  scrape_interval: 1h',
        'scrape_configs:',
        '  - job_name: fleet',
        '    http_sd_configs:',
        `      - url: https://localhost:${String(port)}/api/v2/integrations/prometheus/targets`,
        '        refresh_interval: 1s',
        '        authorization:',
        '          type: Bearer',
        '          credentials_file: {dir}/sd-key',
        '        tls_config:',
        '          ca_file: {dir}/hub-ca.crt',
        '',
      ].join('\n'),
    });
    let active: ActiveTarget[] = [];
    for (let i = 0; i < 150 && active.length < 2; i++) {
      const data = (await prometheus.api('targets')) as { activeTargets: ActiveTarget[] };
      active = data.activeTargets;
      if (active.length < 2) await new Promise((r) => setTimeout(r, 100));
    }
    const byName = new Map(active.map((a) => [a.labels.name, a]));
    expect([...byName.keys()].sort()).toEqual(['db1', 'web1']);
    expect(byName.get('web1')?.labels).toMatchObject({
      instance: '127.0.0.1:9200',
      job: 'fleet',
      asset_id: ids.web1,
      groups: ',web,',
      platform: 'linux',
      status: 'unknown',
    });
    expect(byName.get('db1')?.scrapeUrl).toBe('http://localhost:9187/metrics');
    // Nothing else: the asset outside the key's allowed assets is not there.
    expect(fs.existsSync(path.join(prometheus.dir, 'sd-key'))).toBe(true);
    expect(active.some((a) => a.labels.asset_id === ids.secret1)).toBe(false);
  });
});
