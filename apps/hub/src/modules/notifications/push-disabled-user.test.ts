/**
 * Decision 0087, addendum: a disabled user's devices receive no push (alerts, digests, incidents) while another
 * user's do; a digest pending for them is dropped, and once enabled they receive again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PushSubscription, User } from '@svc/protocol';
import {
  databaseTargets,
  startFakePushService,
  startTestHub,
  type FakePushService,
  type TestHub,
} from '@svc/testkit';
import type { PushMessage } from './push.service.js';

// inject() sends this Host; a same-origin console request carries its origin.
const ownOrigin = 'http://localhost:80';
const password = 'a long enough password';

describe.each(databaseTargets())('push to a disabled user ($name)', ({ options }) => {
  let t: TestHub;
  let push: FakePushService;
  let alertCount = 0;

  async function userWithSession(username: string): Promise<{ user: User; cookie: string }> {
    const made = await t.request('POST', '/api/auth/users', {
      body: { username, password, role: 'operator' },
    });
    expect(made.status, made.text).toBe(201);
    const login = await t.request('POST', '/api/auth/login', { key: null, body: { username, password } });
    expect(login.status, login.text).toBe(200);
    const header = login.headers['set-cookie'];
    const all = header === undefined ? [] : Array.isArray(header) ? header : [String(header)];
    const cookie = all.find((c) => c.startsWith('svc_session='))?.split(';')[0] ?? '';
    return { user: made.json.data as User, cookie };
  }

  /** A device of the signed-in user, subscribed with the given digest window: the fake push service's id. */
  async function device(cookie: string, digestWindowS: number): Promise<string> {
    const subscribed = push.subscribe();
    const res = await t.request('POST', '/api/notifications/push/subscriptions', {
      key: null,
      headers: { cookie, origin: ownOrigin },
      body: {
        device_id: `device-${subscribed.id}`,
        endpoint: subscribed.endpoint,
        keys: subscribed.keys,
        digest_window_s: digestWindowS,
      },
    });
    expect(res.status, res.text).toBe(201);
    expect((res.json.data as PushSubscription).digest_window_s).toBe(digestWindowS);
    return subscribed.id;
  }

  function fire(): string {
    alertCount += 1;
    const alertId = `alr_disabled_${String(alertCount)}`;
    t.hub.events.publish('alert.fired', {
      asset_ids: ['ast_pushed'],
      asset_id: 'ast_pushed',
      asset_name: 'web-1',
      alert_id: alertId,
      rule_id: 'arl_pushed',
      severity: 'warning',
      summary: `test alert ${alertId}`,
    });
    return alertId;
  }

  const decoded = (deviceId: string) =>
    push.messages
      .filter((m) => m.subscriptionId === deviceId)
      .map((m) => JSON.parse(m.payload) as PushMessage);

  /** The alert ids (or incident ids) of each message one device received. */
  const seen = (deviceId: string) =>
    decoded(deviceId).map((m) =>
      m.kind === 'alerts' ? (m.alerts ?? []).map((a) => a.alert_id) : [m.incident?.id],
    );

  async function received(deviceId: string, count: number): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (decoded(deviceId).length < count && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(decoded(deviceId).length).toBeGreaterThanOrEqual(count);
  }

  beforeAll(async () => {
    push = await startFakePushService();
    t = await startTestHub({
      ...options,
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
    });
  });

  afterAll(async () => {
    await t.close();
    await push.close();
  });

  it("sends a disabled user's devices nothing while another user's receive, and again once enabled", async () => {
    const pia = await userWithSession('pia');
    const pete = await userWithSession('pete');
    const piaNow = await device(pia.cookie, 0);
    const piaDigest = await device(pia.cookie, 1);
    const peteNow = await device(pete.cookie, 0);
    const peteDigest = await device(pete.cookie, 1);

    // Enabled: pia's device gets the alert; it also opens a digest on her other device.
    const first = fire();
    await received(piaNow, 1);
    expect(seen(piaNow)).toEqual([[first]]);

    const disabled = await t.request('POST', `/api/auth/users/${pia.user.id}/disable`);
    expect(disabled.status, disabled.text).toBe(200);
    const second = fire();
    t.hub.events.publish('incident.created', {
      asset_ids: ['ast_pushed'],
      asset_id: 'ast_pushed',
      incident_id: 'inc_disabled',
      severity: 'critical',
      title: 'web-1 is down',
    });
    // Pete gets everything: both alerts at once and in his digest, and the incident (at once) on both devices.
    await received(peteNow, 3);
    await received(peteDigest, 2);
    expect(seen(peteDigest).sort()).toEqual([[first, second], ['inc_disabled']]);
    expect(seen(peteNow).sort()).toEqual([[first], [second], ['inc_disabled']]);
    // Pia's devices got nothing more: the alert, the incident, and the digest pending when she was disabled.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(seen(piaNow)).toEqual([[first]]);
    expect(seen(piaDigest)).toEqual([]);
    // Her subscriptions are kept (and counted nothing for what was held back).
    const kept = await t.hub.database.db
      .selectFrom('push_subscriptions')
      .select(['id', 'sent_count', 'failed_count'])
      .where('user_id', '=', pia.user.id)
      .execute();
    expect(kept.map((r) => [r.sent_count, r.failed_count]).sort()).toEqual([
      [0, 0],
      [1, 0],
    ]);

    // Enabled again: both devices receive, and the digest holds only what fired since (the old one was dropped).
    const enabled = await t.request('POST', `/api/auth/users/${pia.user.id}/enable`);
    expect(enabled.status, enabled.text).toBe(200);
    const third = fire();
    await received(piaNow, 2);
    await received(piaDigest, 1);
    expect(seen(piaNow)).toEqual([[first], [third]]);
    expect(seen(piaDigest)).toEqual([[third]]);
    expect(push.refusals).toEqual([]);
  });
});
