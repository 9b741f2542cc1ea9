/**
 * Retention of webhook delivery records: what finished before `retention.webhook_deliveries_days` goes at the
 * retention run, in bounded batches; what is recent stays, and a webhook's counters are untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Webhook } from '@svc/protocol';
import { ManualClock } from '@svc/hub';
import { databaseTargets, startTestHub, type TestHub } from '@svc/testkit';
import { startReceiver, until, type Receiver } from '../../testing/webhook-receiver.js';

const dayMs = 24 * 60 * 60 * 1000;

describe.each(databaseTargets())('webhook delivery retention ($name)', ({ options }) => {
  let t: TestHub;
  let receiver: Receiver;
  const clock = new ManualClock(new Date('2026-03-01T00:00:00.000Z'));

  beforeAll(async () => {
    receiver = await startReceiver(['localhost']);
    t = await startTestHub({
      ...options,
      clock,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true' },
      outbound: { ca: receiver.ca },
    });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  async function deliveryIds(): Promise<string[]> {
    const rows = await t.hub.database.db
      .selectFrom('webhook_deliveries')
      .select('id')
      .orderBy('id')
      .execute();
    return rows.map((r) => r.id);
  }

  async function sendTest(id: string): Promise<string> {
    const res = await t.request('POST', `/api/v2/webhooks/${id}/test`);
    expect(res.status, res.text).toBe(200);
    return (res.json.data as { delivery_id: string }).delivery_id;
  }

  it('purges records older than the setting and keeps recent ones', async () => {
    const created = await t.request('POST', '/api/v2/webhooks', {
      body: {
        name: 'kept',
        url: `https://localhost:${String(receiver.port)}/hook`,
        // Only the test deliveries: the settings change below would be delivered too.
        events: ['group.created'],
      },
    });
    expect(created.status, created.text).toBe(201);
    const hook = created.json.data as Webhook;
    const old = await sendTest(hook.id);
    clock.advance(40 * dayMs);
    const recent = await sendTest(hook.id);
    // Records are written just after the answer.
    await until(async () => (await deliveryIds()).length === 2);
    expect(await deliveryIds()).toEqual([old, recent].sort());
    // The default keeps 30 days; a shorter window from the Retention settings applies at the next run.
    const result = await t.hub.retention.runOnce();
    expect(result.deleted.webhook_deliveries).toBe(1);
    expect(await deliveryIds()).toEqual([recent]);

    const patch = await t.request('PATCH', '/api/settings/retention', {
      body: { 'retention.webhook_deliveries_days': 1 },
    });
    expect(patch.status, patch.text).toBe(200);
    clock.advance(2 * dayMs);
    await t.hub.retention.runOnce();
    expect(await deliveryIds()).toEqual([]);
    // Counters live on the webhook and survive the purge of its records.
    const read = await t.request('GET', `/api/v2/webhooks/${hook.id}`);
    expect((read.json.data as Webhook).deliveries.delivered).toBe(2);
  });

  it('works off a large backlog in several short deletes', async () => {
    const finished = new Date(clock.now().getTime() - 100 * dayMs).toISOString();
    const rows = Array.from({ length: 2300 }, (_, i) => ({
      id: `dlv_old_${String(i).padStart(5, '0')}`,
      webhook_id: 'whk_gone',
      event_id: `evt_${String(i)}`,
      event_type: 'group.created',
      outcome: 'delivered',
      attempts: 1,
      http_status: 200,
      error: null,
      created_at: finished,
      finished_at: finished,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await t.hub.database.db
        .insertInto('webhook_deliveries')
        .values(rows.slice(i, i + 500))
        .execute();
    }
    const result = await t.hub.retention.runOnce();
    expect(result.deleted.webhook_deliveries).toBe(2300);
    expect(result.batches).toBeGreaterThanOrEqual(3);
    expect(await deliveryIds()).toEqual([]);
  });
});
