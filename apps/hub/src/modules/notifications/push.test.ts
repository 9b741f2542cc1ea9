import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushKey, PushSubscription } from '@svc/protocol';
import { startFakePushService, startTestHub, type FakePushService, type TestHub } from '@svc/testkit';
import type { PushMessage } from './push.service.js';

// inject() sends this Host; a same-origin console request carries its origin.
const ownOrigin = 'http://localhost:80';

function clock(date: Date): string {
  return `${String(date.getUTCHours()).padStart(2, '0')}:${String(date.getUTCMinutes()).padStart(2, '0')}`;
}

describe('push alerts to a device through a Web Push service', () => {
  let t: TestHub;
  let push: FakePushService;
  let cookie: string;
  let alertCount = 0;

  const asOwner = (method: string, url: string, body?: unknown) =>
    t.request(method, url, {
      key: null,
      headers: { cookie, origin: ownOrigin },
      ...(body !== undefined ? { body } : {}),
    });

  function fire(severity: 'info' | 'warning' | 'critical'): string {
    alertCount += 1;
    const alertId = `alr_push_${String(alertCount)}`;
    t.hub.events.publish('alert.fired', {
      asset_ids: ['ast_pushed'],
      asset_id: 'ast_pushed',
      asset_name: 'web-1',
      alert_id: alertId,
      rule_id: 'arl_pushed',
      severity,
      summary: `test alert ${alertId}`,
    });
    return alertId;
  }

  async function subscribe(extra: Record<string, unknown> = {}) {
    const device = push.subscribe();
    const res = await asOwner('POST', '/api/notifications/push/subscriptions', {
      device_id: `device-${device.id}`,
      endpoint: device.endpoint,
      keys: device.keys,
      ...extra,
    });
    expect(res.status, res.text).toBe(201);
    return { device, subscription: res.json.data as PushSubscription };
  }

  /** What one device received, decrypted, from message `from` on. */
  const decoded = (deviceId: string, from = 0) =>
    push.messages
      .slice(from)
      .filter((m) => m.subscriptionId === deviceId)
      .map((m) => JSON.parse(m.payload) as PushMessage);

  async function received(deviceId: string, count: number, from = 0): Promise<PushMessage[]> {
    const deadline = Date.now() + 10_000;
    while (decoded(deviceId, from).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    return decoded(deviceId, from);
  }

  beforeAll(async () => {
    push = await startFakePushService();
    t = await startTestHub({
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
    });
    const login = await t.request('POST', '/api/auth/login', {
      key: null,
      body: { username: 'owner', password: t.ownerPassword },
    });
    const header = login.headers['set-cookie'];
    const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
    cookie = all.find((c) => c.startsWith('svc_session='))?.split(';')[0] ?? '';
  });

  afterAll(async () => {
    await t.close();
    await push.close();
  });

  it('signs with the VAPID key it publishes and delivers an encrypted alert the device decrypts', async () => {
    const key = (await asOwner('GET', '/api/notifications/push/key')).json.data as PushKey;
    expect(key.public_key).toMatch(/^[A-Za-z0-9_-]{80,90}$/);
    const { device, subscription } = await subscribe();
    expect(subscription).toMatchObject({ min_severity: 'warning', digest_window_s: 0, quiet_hours: null });
    expect(subscription.endpoint_origin).toBe(push.origin);

    const before = push.messages.length;
    const alertId = fire('warning');
    const [message] = await received(device.id, 1, before);
    expect(message).toMatchObject({
      kind: 'alerts',
      severity: 'warning',
      title: `web-1: test alert ${alertId}`,
    });
    expect(message?.alerts?.map((a) => a.alert_id)).toEqual([alertId]);
    expect(push.messages.filter((m) => m.subscriptionId === device.id)[0]?.vapidKey).toBe(key.public_key);
    expect(push.refusals).toEqual([]);

    // The VAPID private key is sealed at rest: the settings table holds the public one only in clear.
    const stored = await t.hub.database.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', 'notifications.vapid')
      .executeTakeFirstOrThrow();
    expect(stored.value).toContain(key.public_key);
    expect(stored.value).toContain('private_key_sealed');
    await asOwner('DELETE', `/api/notifications/push/subscriptions/${subscription.id}`);
  });

  it('holds back all but critical alerts in quiet hours, and below its minimum severity', async () => {
    // The hub's clock (the test hub's is fixed), not this machine's.
    const now = t.clock.now();
    const { device, subscription } = await subscribe({
      quiet_hours: {
        start: clock(new Date(now.getTime() - 3_600_000)),
        end: clock(new Date(now.getTime() + 3_600_000)),
      },
    });
    const before = push.messages.length;
    fire('info');
    fire('warning');
    const critical = fire('critical');
    await received(device.id, 1, before);
    // Routing is done event by event in order: nothing held back arrives after the critical one.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(decoded(device.id, before).map((m) => m.alerts?.map((a) => a.alert_id))).toEqual([[critical]]);
    await asOwner('DELETE', `/api/notifications/push/subscriptions/${subscription.id}`);
  });

  it('coalesces a burst into one digest message', async () => {
    const { device, subscription } = await subscribe({ digest_window_s: 1 });
    const ids = [fire('warning'), fire('critical'), fire('warning')];
    const [digest] = await received(device.id, 1);
    expect(digest).toMatchObject({ kind: 'alerts', severity: 'critical', title: '3 alerts', more: 0 });
    expect(digest?.alerts?.map((a) => a.alert_id)).toEqual(ids);
    await asOwner('DELETE', `/api/notifications/push/subscriptions/${subscription.id}`);
  });

  it('sends incidents at once, and their resolution, for the device to keep and close its notification', async () => {
    const { device, subscription } = await subscribe({ digest_window_s: 600 });
    const data = {
      asset_ids: ['ast_pushed'],
      asset_id: 'ast_pushed',
      incident_id: 'inc_pushed',
      severity: 'critical' as const,
      title: 'web-1 is down',
    };
    t.hub.events.publish('incident.created', data);
    t.hub.events.publish('incident.resolved', data);
    const messages = await received(device.id, 2);
    // Sent at once each, so they may arrive in either order; the app orders them by the incident's state.
    expect(messages.map((m) => [m.kind, m.incident?.id, m.incident?.status]).sort()).toEqual([
      ['incident', 'inc_pushed', 'open'],
      ['incident', 'inc_pushed', 'resolved'],
    ]);
    await asOwner('DELETE', `/api/notifications/push/subscriptions/${subscription.id}`);
  });

  it('deletes a subscription the push service calls gone (410)', async () => {
    const { device, subscription } = await subscribe();
    push.expire(device.id);
    fire('critical');
    const deadline = Date.now() + 10_000;
    let list: PushSubscription[] = [];
    while (Date.now() < deadline) {
      list = (await asOwner('GET', '/api/notifications/push/subscriptions')).json.data as PushSubscription[];
      if (!list.some((s) => s.id === subscription.id)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(list.map((s) => s.id)).not.toContain(subscription.id);
    expect(push.refusals.at(-1)).toMatchObject({ status: 410 });
  });

  it("refuses an endpoint the egress guard refuses, and another user's subscription", async () => {
    const refused = await asOwner('POST', '/api/notifications/push/subscriptions', {
      device_id: 'device-meta-data',
      endpoint: 'http://169.254.169.254/push/x',
      keys: push.subscribe().keys,
    });
    expect(refused.status).toBe(400);
    expect(refused.json.message).toMatch(/egress guard/);

    const { subscription } = await subscribe();
    const key = await t.createKey({ role: 'admin' });
    const byKey = await t.request('DELETE', `/api/notifications/push/subscriptions/${subscription.id}`, {
      key: key.raw_key,
    });
    expect(byKey.status).toBe(403);
  });
});
