/**
 * Remote write as an admin and a receiver meet it: Debian's real `prometheus` with its remote-write receiver
 * takes the hub's stored metrics (queried there by the asset's labels); a receiver of the test's own shows the
 * headers and what a 400, a 500 and a full backlog do; the configuration is vetted (URL, scheme, egress guard,
 * credentials never returned). On SQLite, and on PostgreSQL when SVC_TEST_DATABASE_URL is set.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { MetricSample, PrometheusSettings } from '@svc/protocol';
import { ManualClock } from '@svc/hub';
import {
  databaseTargets,
  startPrometheus,
  startTestHub,
  type PrometheusServer,
  type TestHub,
} from '@svc/testkit';

const rw = '/api/v2/integrations/prometheus/remote-write';

function sample(ms: number, cpu = 42.5): MetricSample {
  return {
    ts: new Date(ms).toISOString(),
    cpu_percent: cpu,
    memory_used_bytes: 1_000,
    memory_total_bytes: 4_000,
    disk_used_bytes: 10,
    disk_total_bytes: 100,
    load1: 0.75,
    net_rx_bytes: 5,
    net_tx_bytes: 6,
  };
}

interface Received {
  headers: http.IncomingHttpHeaders;
  bytes: number;
}

/** A receiver answering the statuses it is told to, recording what it got. */
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  answer: { status: number };
  close: () => Promise<void>;
}> {
  const received: Received[] = [];
  const answer = { status: 204 };
  const server = http.createServer((req, res) => {
    let bytes = 0;
    req.on('data', (chunk: Buffer) => (bytes += chunk.length));
    req.on('end', () => {
      received.push({ headers: req.headers, bytes });
      res.statusCode = answer.status;
      res.end(answer.status >= 400 ? 'out of order sample\n' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${String(port)}/api/v1/write`,
    received,
    answer,
    close: () =>
      new Promise((resolve) =>
        server.close(() => {
          resolve();
        }),
      ),
  };
}

describe.each(databaseTargets())('Prometheus remote write ($name)', ({ options }) => {
  let t: TestHub;
  let clock: ManualClock;
  let assetId = '';
  let prometheus: PrometheusServer | null = null;

  async function settings(): Promise<PrometheusSettings> {
    const res = await t.request('GET', '/api/v2/integrations/prometheus');
    expect(res.status, res.text).toBe(200);
    return res.json.data as PrometheusSettings;
  }

  async function store(samples: MetricSample[]): Promise<void> {
    t.hub.metrics.store.add(assetId, samples);
    await t.hub.metrics.store.flush();
  }

  /** A pass once the samples stored so far are older than the read lag. */
  async function pass(): Promise<void> {
    clock.advance(2_000);
    await t.hub.services.remoteWrite.sendNow();
  }

  beforeAll(async () => {
    clock = new ManualClock(new Date());
    t = await startTestHub({
      ...options,
      clock,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
      remoteWrite: { intervalMs: 0, readLagMs: 1_000 },
    });
    const res = await t.request('POST', '/api/v2/assets', { body: { name: 'web-7' } });
    assetId = (res.json.data as { id: string }).id;
  });

  afterEach(async () => {
    await t.request('DELETE', rw);
    // Past the new configuration's look-back: each test's samples are its own.
    clock.advance(10 * 60_000);
  });

  afterAll(async () => {
    await prometheus?.stop();
    await t.close();
  });

  it("sends a stored metric that Debian's prometheus then answers for the asset's labels", async () => {
    prometheus = await startPrometheus({ remoteWriteReceiver: true });
    const put = await t.request('PUT', rw, {
      body: { enabled: true, url: `${prometheus.url}/api/v1/write`, auth: 'none' },
    });
    expect(put.status, put.text).toBe(200);
    const at = clock.now().getTime();
    await store([sample(at - 1_000, 12.5), sample(at, 42.5)]);
    await pass();

    const { status } = await settings();
    expect(status).toMatchObject({
      keeping_up: true,
      sent_samples: 2,
      dropped_samples: 0,
      backlog_samples: 0,
      last_error: null,
    });
    const query = encodeURIComponent('svc_cpu_percent{name="web-7"}');
    const data = (await prometheus.api(`query?query=${query}&time=${String(at / 1000)}`)) as {
      result: { metric: Record<string, string>; value: [number, string] }[];
    };
    expect(data.result).toEqual([
      {
        metric: { __name__: 'svc_cpu_percent', asset_id: assetId, name: 'web-7' },
        value: [at / 1000, '42.5'],
      },
    ]);
    const load = (await prometheus.api(
      `query?query=${encodeURIComponent(`svc_load1{asset_id="${assetId}"}`)}&time=${String(at / 1000)}`,
    )) as { result: { value: [number, string] }[] };
    expect(load.result[0]?.value[1]).toBe('0.75');
  });

  it('sends the remote-write headers and bearer; keeps the batch on a 500, drops it on a 400', async () => {
    const receiver = await startReceiver();
    try {
      const put = await t.request('PUT', rw, {
        body: { enabled: true, url: receiver.url, auth: 'bearer', credentials: 'rw-secret-token' },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.text).not.toContain('rw-secret-token');
      expect((put.json.data as PrometheusSettings).remote_write).toMatchObject({
        auth: 'bearer',
        credentials_set: true,
      });

      await store([sample(clock.now().getTime())]);
      receiver.answer.status = 500;
      await pass();
      let { status } = await settings();
      expect(status).toMatchObject({
        sent_samples: 0,
        dropped_samples: 0,
        failed_requests: 1,
        keeping_up: false,
      });
      expect(status?.backlog_samples).toBe(1);
      expect(status?.last_error).toContain('500');
      expect(receiver.received[0]?.headers).toMatchObject({
        'content-type': 'application/x-protobuf',
        'content-encoding': 'snappy',
        'x-prometheus-remote-write-version': '0.1.0',
        authorization: 'Bearer rw-secret-token',
      });

      // The receiver back: the same batch goes, nothing lost.
      receiver.answer.status = 204;
      await pass();
      ({ status } = await settings());
      expect(status).toMatchObject({ sent_samples: 1, backlog_samples: 0, keeping_up: true });
      expect(receiver.received).toHaveLength(2);
      expect(receiver.received[1]?.bytes).toBe(receiver.received[0]?.bytes);

      // A 400 is final: the batch is dropped and counted, never sent again.
      await store([sample(clock.now().getTime())]);
      receiver.answer.status = 400;
      await pass();
      ({ status } = await settings());
      expect(status).toMatchObject({ sent_samples: 1, dropped_samples: 1, backlog_samples: 0 });
      expect(status?.last_error).toMatch(/400.*dropped/);
      receiver.answer.status = 204;
      await pass();
      expect(receiver.received).toHaveLength(3);
    } finally {
      await receiver.close();
    }
  });

  it('keeps the backlog under its bound: the oldest are dropped and counted', async () => {
    const receiver = await startReceiver();
    try {
      receiver.answer.status = 503;
      const put = await t.request('PUT', rw, {
        body: { enabled: true, url: receiver.url, auth: 'none', max_backlog_samples: 1_000 },
      });
      expect(put.status, put.text).toBe(200);
      const now = clock.now().getTime();
      await store(Array.from({ length: 1_500 }, (_, i) => sample(now - 60_000 + i * 10)));
      await pass();
      const { status } = await settings();
      expect(status).toMatchObject({
        dropped_samples: 500,
        backlog_samples: 1_000,
        backlog_capped: false,
        sent_samples: 0,
        keeping_up: false,
      });
      expect(status?.last_error).toContain('503');
    } finally {
      await receiver.close();
    }
  });

  it('refuses a bad URL, credentials in it, a missing credential and a wrong TLS choice; never shows secrets', async () => {
    const cases: [unknown, string][] = [
      [{ enabled: true, url: 'not a url', auth: 'none' }, 'url'],
      [{ enabled: true, url: 'https://user:pw@example.com/write', auth: 'none' }, 'url'],
      [{ enabled: true, url: 'https://127.0.0.1:9/write', auth: 'bearer' }, 'credentials'],
      [{ enabled: true, url: 'https://127.0.0.1:9/write', auth: 'basic', credentials: 'x' }, 'username'],
      [{ enabled: true, url: 'https://127.0.0.1:9/write', auth: 'none', tls_mode: 'pinned_ca' }, 'tls_ca'],
      [{ enabled: true, url: 'https://127.0.0.1:9/write', auth: 'none', extra: 1 }, ''],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('PUT', rw, { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toContain(field);
    }
    expect((await settings()).remote_write).toBeNull();
  });

  it('is for admins only', async () => {
    const key = await t.request('POST', '/api/v2/keys', {
      body: { name: 'ops', role: 'operator', scopes: ['*'] },
    });
    const raw = (key.json.data as { raw_key: string }).raw_key;
    expect((await t.request('GET', '/api/v2/integrations/prometheus', { key: raw })).status).toBe(403);
    const res = await t.request('PUT', rw, {
      key: raw,
      body: { enabled: true, url: 'https://x.test/', auth: 'none' },
    });
    expect(res.status).toBe(403);
  });
});

describe('Prometheus remote write behind the egress guard', () => {
  let t: TestHub;
  beforeAll(async () => {
    t = await startTestHub({ env: { SVC_OUTBOUND_ALLOW_PRIVATE: 'false' }, remoteWrite: { intervalMs: 0 } });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses a loopback receiver, a private one when private networks are off, and plain http', async () => {
    for (const url of [
      'https://127.0.0.1:9090/api/v1/write',
      'https://10.1.2.3/api/v1/write',
      'http://example.com/write',
    ]) {
      const res = await t.request('PUT', rw, { body: { enabled: true, url, auth: 'none' } });
      expect(res.status, url).toBe(400);
      expect(res.text, url).toMatch(/egress guard/);
    }
  });
});
