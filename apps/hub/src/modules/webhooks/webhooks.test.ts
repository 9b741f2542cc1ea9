/**
 * Webhooks end to end, in-process: a hub delivering to a local HTTPS receiver (its CA trusted through the
 * outbound client), names resolved by a fake resolver. The receiver checks each delivery with the SDK's
 * reference verifier.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Webhook, WebhookCreated, WebhookTestResult } from '@svc/protocol';
import { verifyWebhookSignature } from '@svc/sdk/webhooks';
import { startTestHub, type TestHub } from '@svc/testkit';
import type { ResolvedAddress, Resolver } from '../../platform/outbound/guarded-lookup.js';
import { startReceiver, until, type Receiver, type ReceivedRequest } from '../../testing/webhook-receiver.js';

function fakeResolver(table: Record<string, string>): Resolver {
  return (host) => {
    const address = table[host];
    if (address === undefined) return Promise.reject(new Error(`ENOTFOUND ${host}`));
    const answer: ResolvedAddress = { address, family: address.includes(':') ? 6 : 4 };
    return Promise.resolve([answer]);
  };
}

async function createWebhook(t: TestHub, body: Record<string, unknown>): Promise<WebhookCreated> {
  const res = await t.request('POST', '/api/v2/webhooks', { body });
  if (res.status !== 201) throw new Error(`webhook create failed: ${String(res.status)} ${res.text}`);
  return res.json.data as WebhookCreated;
}

async function readWebhook(t: TestHub, id: string): Promise<Webhook> {
  const res = await t.request('GET', `/api/v2/webhooks/${id}`);
  expect(res.status, res.text).toBe(200);
  return res.json.data as Webhook;
}

function publishGroupCreated(t: TestHub, name: string): string {
  return t.hub.events.publish('group.created', { asset_ids: [], group_id: `grp_${name}`, name }).id;
}

function expectSigned(
  request: ReceivedRequest,
  secret: string,
  now: Date,
): { id: string; type: string; ts: string } {
  const header = (name: string) => String(request.headers[name]);
  const verdict = verifyWebhookSignature({
    secret,
    timestamp: header('x-svc-timestamp'),
    body: request.body,
    signature: header('x-svc-signature-256'),
    now,
  });
  expect(verdict).toEqual({ valid: true });
  const body = JSON.parse(request.body) as { id: string; type: string; ts: string; data: unknown };
  expect(Object.keys(body).sort()).toEqual(['data', 'id', 'ts', 'type']);
  expect(header('x-svc-delivery')).toBe(body.id);
  expect(header('x-svc-event')).toBe(body.type);
  expect(header('x-svc-timestamp')).toBe(body.ts);
  return body;
}

describe('webhooks with the loopback opt-in', () => {
  let receiver: Receiver;
  let t: TestHub;
  let base: string;

  beforeAll(async () => {
    receiver = await startReceiver(['hooks.test']);
    t = await startTestHub({
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver: fakeResolver({ 'hooks.test': '127.0.0.1' }), ca: receiver.ca },
      webhookDelivery: { retryDelaysMs: [50, 100, 100], attemptTimeoutMs: 1_500 },
    });
    base = `https://hooks.test:${String(receiver.port)}`;
  });

  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('shows the secret once on create and never in a read or the database', async () => {
    const created = await createWebhook(t, { name: 'secretive', url: `${base}/quiet`, enabled: false });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created.id).toMatch(/^whk_/);
    const reads = [
      await t.request('GET', `/api/v2/webhooks/${created.id}`),
      await t.request('GET', '/api/v2/webhooks'),
      await t.request('PATCH', `/api/v2/webhooks/${created.id}`, {
        body: { secret: 'a-new-secret-of-enough-length' },
      }),
      await t.request('PUT', `/api/v2/webhooks/${created.id}`, {
        body: { name: 'secretive', url: `${base}/quiet`, events: [], enabled: false },
      }),
    ];
    for (const read of reads) {
      expect(read.status, read.text).toBe(200);
      expect(read.text).not.toContain(created.secret);
      expect(read.text).not.toContain('a-new-secret-of-enough-length');
      expect(read.text).not.toContain('"secret":');
    }
    const stored = await t.hub.database.db
      .selectFrom('webhooks')
      .select('secret_sealed')
      .where('id', '=', created.id)
      .executeTakeFirstOrThrow();
    expect(stored.secret_sealed).toMatch(/^v1\./);
    expect(stored.secret_sealed).not.toContain('a-new-secret');
    const deleted = await t.request('DELETE', `/api/v2/webhooks/${created.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.text).not.toContain('a-new-secret');
    expect((await t.request('GET', `/api/v2/webhooks/${created.id}`)).status).toBe(404);
  });

  it('delivers an event signed, with the documented headers and body', async () => {
    receiver.on('/signed', (res) => res.end('ok'));
    const hook = await createWebhook(t, { name: 'signed', url: `${base}/signed`, events: ['group.created'] });
    const eventId = publishGroupCreated(t, 'signed');
    await until(() => receiver.hits('/signed').length === 1);
    const [request] = receiver.hits('/signed');
    const body = expectSigned(request as ReceivedRequest, hook.secret, t.clock.now());
    expect(body).toMatchObject({ type: 'group.created', ts: t.clock.now().toISOString() });
    expect(body.id).toMatch(/^dlv_/);
    await until(async () => (await readWebhook(t, hook.id)).deliveries.delivered === 1);
    const record = await t.hub.database.db
      .selectFrom('webhook_deliveries')
      .selectAll()
      .where('webhook_id', '=', hook.id)
      .executeTakeFirstOrThrow();
    expect(record).toMatchObject({
      id: body.id,
      event_id: eventId,
      outcome: 'delivered',
      attempts: 1,
      http_status: 200,
    });
  });

  it('filters by event type', async () => {
    const hook = await createWebhook(t, {
      name: 'filtered',
      url: `${base}/filtered`,
      events: ['asset.created'],
    });
    publishGroupCreated(t, 'filtered');
    const asset = await t.createAsset();
    await until(() => receiver.hits('/filtered').length === 1);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.hits('/filtered').map((r) => (JSON.parse(r.body) as { type: string }).type)).toEqual([
      'asset.created',
    ]);
    expect(receiver.hits('/filtered')[0]?.body).toContain(asset.id);
    await t.request('DELETE', `/api/v2/webhooks/${hook.id}`);
  });

  it('retries a receiver that answers 500 twice, then counts the delivery', async () => {
    receiver.on('/flaky', (res, _request, hits) => {
      res.statusCode = hits <= 2 ? 500 : 200;
      res.end();
    });
    const hook = await createWebhook(t, { name: 'flaky', url: `${base}/flaky`, events: ['group.created'] });
    publishGroupCreated(t, 'flaky');
    await until(async () => (await readWebhook(t, hook.id)).deliveries.delivered === 1);
    const hits = receiver.hits('/flaky');
    expect(hits).toHaveLength(3);
    // One delivery: the same id and signature each time.
    expect(new Set(hits.map((h) => h.headers['x-svc-delivery'])).size).toBe(1);
    expectSigned(hits[2] as ReceivedRequest, hook.secret, t.clock.now());
    const read = await readWebhook(t, hook.id);
    expect(read.deliveries).toMatchObject({
      delivered: 1,
      failed_attempts: 2,
      dropped: 0,
      pending: 0,
      last_error: 'receiver answered 500',
    });
  });

  it('drops a delivery after its retries and shows the last error', async () => {
    receiver.on('/down', (res) => {
      res.statusCode = 503;
      res.end();
    });
    const hook = await createWebhook(t, { name: 'down', url: `${base}/down`, events: ['group.created'] });
    publishGroupCreated(t, 'down');
    await until(async () => (await readWebhook(t, hook.id)).deliveries.dropped === 1);
    expect(receiver.hits('/down')).toHaveLength(4);
    expect((await readWebhook(t, hook.id)).deliveries).toMatchObject({
      delivered: 0,
      failed_attempts: 4,
      last_error: 'receiver answered 503',
    });
  });

  it('keeps delivering to others while one receiver hangs and another redirects in a loop', async () => {
    receiver.on('/hang', () => undefined);
    receiver.on('/loop', (res) => {
      res.writeHead(302, { location: '/loop' });
      res.end();
    });
    receiver.on('/fast', (res) => res.end('ok'));
    const hang = await createWebhook(t, { name: 'hang', url: `${base}/hang`, events: ['group.created'] });
    const loop = await createWebhook(t, { name: 'loop', url: `${base}/loop`, events: ['group.created'] });
    const fast = await createWebhook(t, { name: 'fast', url: `${base}/fast`, events: ['group.created'] });
    const started = Date.now();
    for (let i = 0; i < 5; i += 1) publishGroupCreated(t, `burst-${String(i)}`);
    await until(() => receiver.hits('/fast').length === 5);
    // Well under the hanging receiver's timeout: nothing waited for it.
    expect(Date.now() - started).toBeLessThan(1_000);
    await until(async () => (await readWebhook(t, loop.id)).deliveries.dropped === 5);
    expect((await readWebhook(t, loop.id)).deliveries.last_error).toContain('redirects');
    await until(async () => (await readWebhook(t, hang.id)).deliveries.failed_attempts >= 1, 5_000);
    expect((await readWebhook(t, hang.id)).deliveries.last_error).toBe('timed out');
    for (const hook of [hang, loop, fast]) await t.request('DELETE', `/api/v2/webhooks/${hook.id}`);
  });

  it('refuses a redirect to the local host at delivery, without a retry', async () => {
    receiver.on('/to-local', (res) => {
      res.writeHead(307, { location: `https://0.0.0.0:${String(receiver.port)}/signed` });
      res.end();
    });
    const hook = await createWebhook(t, {
      name: 'to-local',
      url: `${base}/to-local`,
      events: ['group.created'],
    });
    publishGroupCreated(t, 'to-local');
    await until(async () => (await readWebhook(t, hook.id)).deliveries.dropped === 1);
    expect(receiver.hits('/to-local')).toHaveLength(1);
    expect((await readWebhook(t, hook.id)).deliveries.last_error).toMatch(/^refused by the egress guard/);
    await t.request('DELETE', `/api/v2/webhooks/${hook.id}`);
  });

  it('sends a test event on demand and answers what the receiver did', async () => {
    receiver.on('/test-me', (res) => res.end('ok'));
    const hook = await createWebhook(t, {
      name: 'tested',
      url: `${base}/test-me`,
      events: ['asset.created'],
    });
    const res = await t.request('POST', `/api/v2/webhooks/${hook.id}/test`);
    expect(res.status, res.text).toBe(200);
    const result = res.json.data as WebhookTestResult;
    expect(result).toMatchObject({ outcome: 'delivered', http_status: 200, error: null });
    const [request] = receiver.hits('/test-me');
    const body = expectSigned(request as ReceivedRequest, hook.secret, t.clock.now());
    expect(body).toMatchObject({ id: result.delivery_id, type: 'webhook.test' });

    receiver.on('/test-me', (reply) => {
      reply.statusCode = 500;
      reply.end();
    });
    const failed = (await t.request('POST', `/api/v2/webhooks/${hook.id}/test`)).json
      .data as WebhookTestResult;
    expect(failed).toMatchObject({ outcome: 'failed', http_status: 500, error: 'receiver answered 500' });
    await until(async () => (await readWebhook(t, hook.id)).deliveries.dropped === 1);
  });

  it('answers 400 naming the field for bad input, and 413 for an oversized body', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', url: 'not a url' }, 'url'],
      [{ name: 'x', url: 'ftp://hooks.test/' }, 'url'],
      [{ name: 'x', url: `${base}/`, events: ['no.such_event'] }, 'events'],
      [{ name: 'x', url: `${base}/`, secret: 'short' }, 'secret'],
      [{ name: 'x', url: 'https://unknown.test/' }, 'url'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/v2/webhooks', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toContain(field);
    }
    const huge = await t.request('POST', '/api/v2/webhooks', {
      rawBody: JSON.stringify({ name: 'x', url: `${base}/`, pad: 'x'.repeat(2 * 1024 * 1024) }),
      headers: { 'content-type': 'application/json' },
    });
    expect(huge.status).toBe(413);
  });

  it('refuses keys limited to some assets, and audits every change', async () => {
    const asset = await t.createAsset();
    const limited = await t.createKey({ role: 'admin', scopes: ['*'], allowed_assets: [asset.id] });
    const create = await t.request('POST', '/api/v2/webhooks', {
      key: limited.raw_key,
      body: { name: 'limited', url: `${base}/` },
    });
    expect(create.status).toBe(403);
    expect((await t.request('GET', '/api/v2/webhooks', { key: limited.raw_key })).status).toBe(403);

    const hook = await createWebhook(t, { name: 'audited', url: `${base}/audited` });
    await t.request('PATCH', `/api/v2/webhooks/${hook.id}`, { body: { enabled: false } });
    await t.request('DELETE', `/api/v2/webhooks/${hook.id}`);
    const audit = await t.hub.database.db
      .selectFrom('audit_events')
      .selectAll()
      .where('target_id', '=', hook.id)
      .orderBy('id')
      .execute();
    expect(audit.map((row) => row.action)).toEqual(['webhook.created', 'webhook.updated', 'webhook.deleted']);
    for (const row of audit) expect(JSON.stringify(row)).not.toContain(hook.secret);
  });
});

describe('webhooks without the loopback opt-in', () => {
  const table: Record<string, string> = { 'rebind.test': '93.184.216.34', 'local.test': '127.0.0.1' };
  let t: TestHub;

  beforeAll(async () => {
    t = await startTestHub({ outbound: { resolver: fakeResolver(table) } });
  });

  afterAll(async () => {
    await t.close();
  });

  it('refuses loopback URLs and names that resolve to loopback at create', async () => {
    for (const url of [
      'https://127.0.0.1:8443/',
      'https://[::1]/',
      'https://local.test/',
      'http://rebind.test/',
    ]) {
      const res = await t.request('POST', '/api/v2/webhooks', { body: { name: 'x', url } });
      expect(res.status, url).toBe(400);
      expect(res.json.error).toBe('validation');
      expect(res.text).toContain('url');
    }
  });

  it('refuses at delivery a name that resolves to loopback since it was registered', async () => {
    const hook = await createWebhook(t, {
      name: 'rebind',
      url: 'https://rebind.test/hook',
      events: ['group.created'],
    });
    table['rebind.test'] = '127.0.0.1';
    publishGroupCreated(t, 'rebind');
    await until(async () => (await readWebhook(t, hook.id)).deliveries.dropped === 1);
    const read = await readWebhook(t, hook.id);
    expect(read.deliveries).toMatchObject({ delivered: 0, failed_attempts: 1 });
    expect(read.deliveries.last_error).toMatch(/^refused by the egress guard: rebind\.test: loopback/);
  });
});
