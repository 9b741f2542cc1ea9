/**
 * Service checks as a caller sees them: runs against local listeners (one that answers, one that fails, one
 * closed port), the egress guard refusing loopback without the opt-in, TLS expiry warned, the scheduler running
 * due checks once, history bounded, and who may see and change what.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, type ServiceCheck, type ServiceCheckResult } from '@svc/protocol';
import { createCertificateAuthority, issueServerCertificate } from '../../platform/tls/certificates.js';
import type { HubEvent } from '../../platform/event-bus.js';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';
import { trimResults } from './checks.repository.js';

const dayMs = 24 * 60 * 60 * 1000;

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => {
      resolve();
    });
  });
}

async function createCheck(t: TestHub, body: Record<string, unknown>): Promise<ServiceCheck> {
  const res = await t.request('POST', '/api/v2/checks', { body: { name: 'svc', ...body } });
  if (res.status !== 201) throw new Error(`create: ${String(res.status)} ${res.text}`);
  return res.json.data as ServiceCheck;
}

async function runCheck(t: TestHub, id: string): Promise<ServiceCheckResult> {
  const res = await t.request('POST', `/api/v2/checks/${id}/run`);
  if (res.status !== 200) throw new Error(`run: ${String(res.status)} ${res.text}`);
  return res.json.data as ServiceCheckResult;
}

async function readCheck(t: TestHub, id: string): Promise<ServiceCheck> {
  return (await t.request('GET', `/api/v2/checks/${id}`)).json.data as ServiceCheck;
}

describe.each(databaseTargets())('service checks with the loopback opt-in ($name)', ({ options }) => {
  let t: TestHub;
  let healthy: Server;
  let broken: Server;
  let tls: Server;
  let healthyUrl: string;
  let brokenUrl: string;
  let tlsUrl: string;
  let closedPort: number;
  const events: HubEvent[] = [];

  beforeAll(async () => {
    t = await startTestHub({ ...options, env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' } });
    healthy = createHttpServer((req, res) => {
      if (req.url === '/slow') return; // never answers: the timeout ends the run
      res.writeHead(200, { 'content-type': 'text/plain' }).end('status: all good');
    });
    broken = createHttpServer((_req, res) => {
      res.writeHead(503).end('down for maintenance');
    });
    // A certificate that expires 5 days after the hub's now: issued as if 360 of its 365 days had passed.
    const hubNow = t.clock.now().getTime();
    const ca = await createCertificateAuthority(new Date(hubNow - 361 * dayMs), 'checks test CA');
    const leaf = await issueServerCertificate(ca, ['localhost', '127.0.0.1'], new Date(hubNow - 360 * dayMs));
    tls = createHttpsServer({ cert: leaf.certPem, key: leaf.keyPem }, (_req, res) => {
      res.writeHead(200).end('ok');
    });
    healthyUrl = `http://127.0.0.1:${String(await listen(healthy))}`;
    brokenUrl = `http://127.0.0.1:${String(await listen(broken))}`;
    tlsUrl = `https://127.0.0.1:${String(await listen(tls))}/`;
    const spare = createHttpServer();
    closedPort = await listen(spare);
    await close(spare);
    t.hub.events.subscribe((event) => {
      events.push(event);
    });
  });

  afterAll(async () => {
    await t.close();
    await Promise.all([close(healthy), close(broken), close(tls)]);
  });

  it('an answering service is up, with status, latency and uptime; the body text is looked for', async () => {
    const check = await createCheck(t, {
      kind: 'http',
      target: `${healthyUrl}/health`,
      expected_body: 'all good',
    });
    expect(check).toMatchObject({ status: 'unknown', uptime_24h: null, tls_verify: true });
    const result = await runCheck(t, check.id);
    expect(result).toMatchObject({ ok: true, status_code: 200, error: null });
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
    expect(await readCheck(t, check.id)).toMatchObject({
      status: 'up',
      consecutive_failures: 0,
      last_status_code: 200,
      uptime_24h: 1,
      uptime_7d: 1,
    });
    const wrongText = await createCheck(t, { kind: 'http', target: healthyUrl, expected_body: 'nope' });
    expect(await runCheck(t, wrongText.id)).toMatchObject({
      ok: false,
      status_code: 200,
      error: 'the body does not contain the expected text',
    });
  });

  it('a failing service goes down and publishes check.failed once, then check.recovered', async () => {
    const check = await createCheck(t, { kind: 'http', target: brokenUrl });
    await runCheck(t, check.id);
    await runCheck(t, check.id);
    expect(await readCheck(t, check.id)).toMatchObject({
      status: 'down',
      consecutive_failures: 2,
      last_status_code: 503,
      last_error: 'status 503, expected 2xx or 3xx',
      uptime_24h: 0,
    });
    const failed = events.filter((e) => e.type === 'check.failed' && e.data.check_id === check.id);
    expect(failed).toHaveLength(1);

    // Told to expect 503, the same answer is up again.
    const patched = await t.request('PATCH', `/api/v2/checks/${check.id}`, {
      body: { expected_status: [503] },
    });
    expect(patched.status).toBe(200);
    expect(await runCheck(t, check.id)).toMatchObject({ ok: true });
    expect(events.filter((e) => e.type === 'check.recovered' && e.data.check_id === check.id)).toHaveLength(
      1,
    );
    expect((await readCheck(t, check.id)).uptime_24h).toBeCloseTo(1 / 3, 3);
    const history = await t.request('GET', `/api/v2/checks/${check.id}/results`);
    expect((history.json.data as ServiceCheckResult[]).map((r) => r.ok)).toEqual([true, false, false]);
  });

  it('a timeout and a closed port fail with the reason', async () => {
    const slow = await createCheck(t, { kind: 'http', target: `${healthyUrl}/slow`, timeout_seconds: 1 });
    expect(await runCheck(t, slow.id)).toMatchObject({ ok: false, error: 'no answer within 1000 ms' });
    const closed = await createCheck(t, { kind: 'tcp', target: `127.0.0.1:${String(closedPort)}` });
    const result = await runCheck(t, closed.id);
    expect(result.ok).toBe(false);
    expect(result.error).toContain('ECONNREFUSED');
    const open = await createCheck(t, { kind: 'tcp', target: healthyUrl.replace('http://', '') });
    expect(await runCheck(t, open.id)).toMatchObject({ ok: true });
  });

  it('reads the certificate expiry, warns once before it, and refuses an untrusted one when verifying', async () => {
    const verified = await createCheck(t, { kind: 'http', target: tlsUrl });
    const refused = await runCheck(t, verified.id);
    expect(refused.ok).toBe(false);
    expect(refused.error).toMatch(/certificate/i);

    const check = await createCheck(t, { kind: 'http', target: tlsUrl, tls_verify: false });
    const result = await runCheck(t, check.id);
    expect(result.ok).toBe(true);
    const left = Date.parse(result.cert_expires_at ?? '') - t.clock.now().getTime();
    expect(left).toBeGreaterThan(4 * dayMs);
    expect(left).toBeLessThan(6 * dayMs);
    expect(await readCheck(t, check.id)).toMatchObject({
      cert_expiring: true,
      cert_expires_at: result.cert_expires_at,
    });
    await runCheck(t, check.id);
    const warned = events.filter(
      (e) => e.type === 'check.certificate_expiring' && e.data.check_id === check.id,
    );
    expect(warned.map((e) => e.data)).toEqual([expect.objectContaining({ days_left: 5 })]);
    expect(warned[0]?.data).toMatchObject({ cert_expires_at: result.cert_expires_at, target: tlsUrl });

    // Warned 3 days ahead instead, this certificate is not yet expiring.
    const later = await createCheck(t, {
      kind: 'http',
      target: tlsUrl,
      tls_verify: false,
      cert_warn_days: 3,
    });
    await runCheck(t, later.id);
    expect((await readCheck(t, later.id)).cert_expiring).toBe(false);
  });

  it('the scheduler runs a due check once per interval', async () => {
    const check = await createCheck(t, { kind: 'http', target: healthyUrl, interval_seconds: 30 });
    const due = Date.parse(check.next_run_at ?? '');
    expect(due - t.clock.now().getTime()).toBeLessThanOrEqual(30_000);
    t.clock.set(new Date(due + 10));
    const runner = t.hub.services.checkRunner;
    await Promise.all([runner.runDue(), runner.runDue()]);
    await runner.runDue();
    await runner.idle();
    const after = await readCheck(t, check.id);
    expect(after.status).toBe('up');
    expect(after.next_run_at).toBe(new Date(due + 30_000).toISOString());
    expect((await t.request('GET', `/api/v2/checks/${check.id}/results`)).json.meta).toMatchObject({
      total: 1,
    });
  });

  it('an alert rule of kind check fires after N failed runs in a row and resolves when the check is up', async () => {
    const asset = await t.createAsset({ name: 'shop' });
    const check = await createCheck(t, {
      name: 'shop web',
      kind: 'http',
      target: brokenUrl,
      asset_id: asset.id,
    });
    const rule = await t.request('POST', '/api/v2/alerts/rules', {
      body: { name: 'shop down', kind: 'check', failures: 2, asset_ids: [asset.id] },
    });
    expect(rule.status).toBe(201);
    expect(rule.json.data).toMatchObject({ kind: 'check', failures: 2, threshold_percent: null });
    const alertsOf = async () =>
      (await t.request('GET', `/api/v2/alerts?asset=${asset.id}`)).json.data as {
        status: string;
        kind: string;
        summary: string;
      }[];

    await runCheck(t, check.id);
    await t.hub.services.alertEvaluator.tick();
    expect(await alertsOf()).toEqual([]);
    await runCheck(t, check.id);
    await t.hub.services.alertEvaluator.tick();
    expect(await alertsOf()).toEqual([
      expect.objectContaining({
        status: 'firing',
        kind: 'check',
        summary: 'check shop web failed 2 times in a row: status 503, expected 2xx or 3xx',
      }),
    ]);

    await t.request('PATCH', `/api/v2/checks/${check.id}`, { body: { expected_status: [503] } });
    await runCheck(t, check.id);
    await t.hub.services.alertEvaluator.tick();
    expect((await alertsOf()).map((a) => a.status)).toEqual(['resolved']);

    const wrong = await t.request('POST', '/api/v2/alerts/rules', {
      body: { name: 'cpu', kind: 'cpu', threshold_percent: 90, failures: 2 },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.text).toContain('failures');
  });

  it('makes a check of a discovery suggestion in one call', async () => {
    const asset = await t.createAsset({ name: 'db-host', ip_addresses: ['192.0.2.10'] });
    const now = t.clock.now().toISOString();
    const suggestion = (id: string, kind: string, detail: object, assetId: string | null) => ({
      id,
      key: `${kind}:${id}`,
      kind,
      status: 'pending',
      asset_id: assetId,
      title: `${kind} ${id}`,
      detail: JSON.stringify(detail),
      first_seen_at: now,
      last_seen_at: now,
      decided_at: null,
      decided_by: null,
      created_asset_id: null,
    });
    const ids = {
      port: newId('discoverySuggestion'),
      container: newId('discoverySuggestion'),
      host: newId('discoverySuggestion'),
      noPort: newId('discoverySuggestion'),
    };
    await t.hub.database.db
      .insertInto('discovery_suggestions')
      .values([
        suggestion(ids.port, 'port', { protocol: 'tcp', port: 5432, address: '0.0.0.0' }, asset.id),
        suggestion(ids.container, 'container', { name: 'web', ports: [8080, 8443] }, asset.id),
        suggestion(ids.host, 'host', { address: '192.0.2.20' }, null),
        suggestion(ids.noPort, 'container', { name: 'worker', ports: [] }, asset.id),
      ])
      .execute();
    const from = (suggestion_id: string) =>
      t.request('POST', '/api/v2/check-suggestions', { body: { suggestion_id, interval_seconds: 300 } });

    const port = await from(ids.port);
    expect(port.status).toBe(201);
    expect(port.json.data).toMatchObject({
      kind: 'tcp',
      target: '192.0.2.10:5432',
      asset_id: asset.id,
      interval_seconds: 300,
    });
    expect((await from(ids.container)).json.data).toMatchObject({
      kind: 'tcp',
      target: '192.0.2.10:8080',
    });
    expect((await from(ids.host)).json.data).toMatchObject({ kind: 'ping', target: '192.0.2.20' });
    const none = await from(ids.noPort);
    expect(none.status).toBe(400);
    expect(none.text).toContain('no published port');
    expect((await from(newId('discoverySuggestion'))).status).toBe(404);

    const limited = await t.createKey({ role: 'operator', scopes: ['checks:*'], allowed_assets: [asset.id] });
    expect(
      (
        await t.request('POST', '/api/v2/check-suggestions', {
          key: limited.raw_key,
          body: { suggestion_id: ids.port },
        })
      ).status,
    ).toBe(403);
  });

  it('keeps the newest results of a check and no more', async () => {
    const check = await createCheck(t, { kind: 'tcp', target: healthyUrl.replace('http://', '') });
    const db = t.hub.database.db;
    const rows = Array.from({ length: 30 }, (_, i) => ({
      id: `chr_${String(i).padStart(4, '0')}`,
      check_id: check.id,
      at: new Date(Date.UTC(2026, 10, 23, 11, i)).toISOString(),
      ran: 1,
      ok: 1,
      latency_ms: 1,
      status_code: null,
      error: null,
      cert_expires_at: null,
    }));
    await db.insertInto('service_check_results').values(rows).execute();
    expect(await trimResults(db, check.id, 10)).toBe(20);
    const kept = await t.request('GET', `/api/v2/checks/${check.id}/results?per_page=100`);
    expect((kept.json.data as ServiceCheckResult[]).map((r) => r.id)).toEqual(
      rows
        .slice(20)
        .map((r) => r.id)
        .reverse(),
    );
  });

  it('refuses garbage with a 400 that names the field', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ kind: 'http', target: 'ftp://example.com/' }, 'target'],
      [{ kind: 'http', target: 'not a url' }, 'target'],
      [{ kind: 'http', target: 'http://user:pw@example.com/' }, 'target'],
      [{ kind: 'tcp', target: 'example.com' }, 'target'],
      [{ kind: 'tcp', target: 'example.com:70000' }, 'target'],
      [{ kind: 'ping', target: 'bad host!' }, 'target'],
      [{ kind: 'tcp', target: 'example.com:22', expected_body: 'x' }, 'expected_body'],
      [{ kind: 'http', target: 'https://example.com', interval_seconds: 5 }, 'interval_seconds'],
      [{ kind: 'http', target: 'https://example.com', timeout_seconds: 0 }, 'timeout_seconds'],
      [{ kind: 'smtp', target: 'example.com' }, 'kind'],
      [{ kind: 'http', target: 'https://example.com', extra: 1 }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/v2/checks', { body: { name: 'bad', ...body } });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text, JSON.stringify(body)).toContain(field);
    }
    expect((await t.request('PATCH', '/api/v2/checks/chk_nope', { body: {} })).status).toBe(400);
    expect((await t.request('GET', '/api/v2/checks/chk_nope')).status).toBe(404);
  });

  it('keys see and change only what their scopes and assets allow; every change is audited', async () => {
    const asset = await t.createAsset({ name: 'web-1' });
    const other = await t.createAsset({ name: 'web-2' });
    const mine = await createCheck(t, { kind: 'http', target: healthyUrl, asset_id: asset.id });
    const theirs = await createCheck(t, { kind: 'http', target: healthyUrl, asset_id: other.id });
    const reader = await t.createKey({
      role: 'operator',
      scopes: ['checks:read'],
      allowed_assets: [asset.id],
    });
    const asReader = { key: reader.raw_key };
    const listed = await t.request('GET', '/api/v2/checks', asReader);
    expect((listed.json.data as ServiceCheck[]).map((c) => c.id)).toEqual([mine.id]);
    expect((await t.request('GET', `/api/v2/checks/${theirs.id}`, asReader)).status).toBe(404);
    expect((await t.request('POST', `/api/v2/checks/${mine.id}/run`, asReader)).status).toBe(403);

    const writer = await t.createKey({ role: 'operator', scopes: ['checks:*'], allowed_assets: [asset.id] });
    const asWriter = { key: writer.raw_key };
    const noAsset = await t.request('POST', '/api/v2/checks', {
      ...asWriter,
      body: { name: 'x', kind: 'ping', target: 'example.com' },
    });
    expect(noAsset.status).toBe(400);
    const foreign = await t.request('POST', '/api/v2/checks', {
      ...asWriter,
      body: { name: 'x', kind: 'ping', target: 'example.com', asset_id: other.id },
    });
    expect(foreign.status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/checks/${theirs.id}`, asWriter)).status).toBe(404);
    expect((await t.request('DELETE', `/api/v2/checks/${mine.id}`, asWriter)).status).toBe(200);

    const viewer = await t.createKey({ role: 'viewer', scopes: ['checks:*'] });
    const asViewer = { key: viewer.raw_key };
    expect((await t.request('GET', '/api/v2/checks', asViewer)).status).toBe(200);
    expect((await t.request('DELETE', `/api/v2/checks/${theirs.id}`, asViewer)).status).toBe(403);

    const audit = await t.request('GET', `/api/v2/audit/events?target_id=${mine.id}`);
    const actions = (audit.json.data as { action: string }[]).map((e) => e.action).sort();
    expect(actions).toEqual(['check.created', 'check.deleted']);
  });
});

describe.each(databaseTargets())('service checks without the loopback opt-in ($name)', ({ options }) => {
  let t: TestHub;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createHttpServer((_req, res) => res.writeHead(200).end('ok'));
    url = `http://127.0.0.1:${String(await listen(server))}/`;
    t = await startTestHub(options);
  });

  afterAll(async () => {
    await t.close();
    await close(server);
  });

  it('the egress guard refuses loopback targets: the run fails and nothing is dialled', async () => {
    let dialled = 0;
    server.on('connection', () => {
      dialled += 1;
    });
    for (const target of [url, 'http://localhost:9/', 'http://[::1]:9/']) {
      const check = await createCheck(t, { kind: 'http', target, timeout_seconds: 2 });
      const result = await runCheck(t, check.id);
      expect(result.ok, target).toBe(false);
      expect(result.error, target).toContain('refused by the egress guard');
    }
    const tcp = await createCheck(t, { kind: 'tcp', target: url.replace(/^http:\/\/|\/$/g, '') });
    expect((await runCheck(t, tcp.id)).error).toContain('refused by the egress guard');
    const ping = await createCheck(t, { kind: 'ping', target: '127.0.0.1' });
    expect((await runCheck(t, ping.id)).error).toContain('refused by the egress guard');
    expect(dialled).toBe(0);
  });
});
