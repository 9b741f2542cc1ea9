/**
 * Nothing queued is lost by a clean restart (decision 0019): deliveries pending while the receiver is down are
 * kept in the database, and a new hub on the same database delivers each exactly once, under its delivery id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Webhook, WebhookCreated } from '@svc/protocol';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';
import type { Resolver } from '../../platform/outbound/guarded-lookup.js';
import { startReceiver, until, type Receiver } from '../../testing/webhook-receiver.js';

const resolver: Resolver = (host) =>
  host === 'hooks.test'
    ? Promise.resolve([{ address: '127.0.0.1', family: 4 }])
    : Promise.reject(new Error(`ENOTFOUND ${host}`));

/** A port where nothing listens any more: the receiver is down. */
async function downReceiverPort(): Promise<number> {
  const probe = await startReceiver(['hooks.test']);
  await probe.close();
  return probe.port;
}

describe.each(databaseTargets())('webhook deliveries across a clean restart ($name)', ({ options }) => {
  let t: TestHub | null = null;
  let receiver: Receiver | null = null;

  afterEach(async () => {
    await t?.close();
    await receiver?.close();
    t = null;
    receiver = null;
  });

  async function pendingRows(hub: TestHub) {
    return hub.hub.database.db.selectFrom('webhook_pending').selectAll().orderBy('id').execute();
  }

  async function startDown(maxPending: number): Promise<{ hook: WebhookCreated; port: number }> {
    const port = await downReceiverPort();
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver },
      // The first retry is a minute away: still waiting when the hub stops.
      webhookDelivery: { retryDelaysMs: [60_000, 50], maxPending },
    });
    const res = await t.request('POST', '/api/v2/webhooks', {
      body: { name: 'durable', url: `https://hooks.test:${String(port)}/in`, events: ['group.created'] },
    });
    expect(res.status, res.text).toBe(201);
    return { hook: res.json.data as WebhookCreated, port };
  }

  function publish(hub: TestHub, count: number): void {
    for (let i = 0; i < count; i += 1)
      hub.hub.events.publish('group.created', {
        asset_ids: [],
        group_id: `grp_${String(i)}`,
        name: `g${String(i)}`,
      });
  }

  async function webhookOf(hub: TestHub, id: string): Promise<Webhook> {
    return (await hub.request('GET', `/api/v2/webhooks/${id}`)).json.data as Webhook;
  }

  it('delivers what was pending exactly once after the restart, with the same delivery ids', async () => {
    const { hook, port } = await startDown(100);
    const first = t as TestHub;
    publish(first, 3);
    await until(async () => (await webhookOf(first, hook.id)).deliveries.failed_attempts === 3);
    await until(async () => (await pendingRows(first)).every((row) => row.attempts === 1));
    const pending = await pendingRows(first);
    expect(pending).toHaveLength(3);
    expect((await webhookOf(first, hook.id)).deliveries.pending).toBe(3);

    receiver = await startReceiver(['hooks.test'], port);
    // Past the retry time, then a new hub on the same database.
    first.clock.advance(61_000);
    t = await first.restart({ outbound: { resolver, ca: receiver.ca } });
    const second = t;

    await until(() => receiver?.hits('/in').length === 3);
    await until(async () => (await webhookOf(second, hook.id)).deliveries.delivered === 3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const ids = receiver.hits('/in').map((hit) => String(hit.headers['x-svc-delivery']));
    expect(ids.sort()).toEqual(pending.map((row) => row.id).sort());
    // The exact body kept: its id is the delivery id, its ts the one of the first attempt.
    for (const hit of receiver.hits('/in')) {
      const body = JSON.parse(hit.body) as { id: string; ts: string };
      const row = pending.find((p) => p.id === body.id);
      expect(hit.body).toBe(row?.body);
      expect(hit.headers['x-svc-timestamp']).toBe(row?.ts);
    }
    expect(await pendingRows(second)).toEqual([]);
    const records = await second.hub.database.db
      .selectFrom('webhook_deliveries')
      .select(['id', 'outcome', 'attempts'])
      .where('webhook_id', '=', hook.id)
      .execute();
    expect(records).toHaveLength(3);
    expect(records.every((r) => r.outcome === 'delivered' && r.attempts === 2)).toBe(true);
  });

  it('keeps the bound: a full queue drops new deliveries, and a smaller bound at start drops the rows beyond it', async () => {
    const { hook, port } = await startDown(3);
    const first = t as TestHub;
    publish(first, 5);
    await until(async () => (await webhookOf(first, hook.id)).deliveries.dropped === 2);
    await until(async () => (await pendingRows(first)).length === 3);

    receiver = await startReceiver(['hooks.test'], port);
    first.clock.advance(61_000);
    t = await first.restart({
      outbound: { resolver, ca: receiver.ca },
      webhookDelivery: { retryDelaysMs: [50], maxPending: 2 },
    });
    const second = t;
    await until(async () => {
      const read = await webhookOf(second, hook.id);
      return read.deliveries.delivered === 2 && read.deliveries.dropped === 3;
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.hits('/in')).toHaveLength(2);
    expect(await pendingRows(second)).toEqual([]);
    expect((await webhookOf(second, hook.id)).deliveries).toMatchObject({
      pending: 0,
      last_error: 'delivery queue full',
    });
  });

  it('keeps an attempt the stop cut short pending, uncounted, and sends it again under the same id', async () => {
    receiver = await startReceiver(['hooks.test']);
    const live = receiver;
    live.on('/slow', () => undefined);
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { resolver, ca: live.ca },
    });
    const first = t;
    const res = await first.request('POST', '/api/v2/webhooks', {
      body: { name: 'slow', url: `https://hooks.test:${String(live.port)}/slow`, events: ['group.created'] },
    });
    const hook = res.json.data as WebhookCreated;
    publish(first, 1);
    await until(() => live.hits('/slow').length === 1);

    live.on('/slow', (answer) => answer.end('ok'));
    t = await first.restart();
    const second = t;
    await until(async () => (await webhookOf(second, hook.id)).deliveries.delivered === 1);
    const hits = live.hits('/slow');
    // The receiver saw the cut-short attempt and the one after the restart: one delivery id, to drop by.
    expect(hits).toHaveLength(2);
    expect(new Set(hits.map((h) => h.headers['x-svc-delivery'])).size).toBe(1);
    expect((await webhookOf(second, hook.id)).deliveries).toMatchObject({ failed_attempts: 0, dropped: 0 });
    const [record] = await second.hub.database.db
      .selectFrom('webhook_deliveries')
      .select(['outcome', 'attempts'])
      .where('webhook_id', '=', hook.id)
      .execute();
    expect(record).toEqual({ outcome: 'delivered', attempts: 1 });
  });
});
