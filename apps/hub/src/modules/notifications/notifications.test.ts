/**
 * Notification channels against local receivers: an SMTP server from `smtp-server` on loopback, and the HTTPS
 * receiver for the webhook, ntfy, Slack and Discord kinds. Alerts are published on the bus as the alerts area
 * will publish them.
 */
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NotificationChannel, NotificationTestResult } from '@svc/protocol';
import { startTestHub, type TestHub } from '@svc/testkit';
import type { Resolver } from '../../platform/outbound/guarded-lookup.js';
import { startReceiver, until, type Receiver } from '../../testing/webhook-receiver.js';
import { alertPayload } from '../../testing/alert-payload.js';

interface Mail {
  from: string;
  to: string[];
  raw: string;
}

async function startSmtp(): Promise<{ port: number; mails: Mail[]; close: () => Promise<void> }> {
  const mails: Mail[] = [];
  const server = new SMTPServer({
    secure: false,
    authOptional: true,
    allowInsecureAuth: true,
    onAuth(auth, _session, callback) {
      callback(null, { user: auth.username });
    },
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        mails.push({
          from: from === false ? '' : from.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    mails,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}

const resolver: Resolver = (host) =>
  Promise.resolve(host.endsWith('.test') ? [{ address: '127.0.0.1', family: 4 as const }] : []);

const bodyOf = (raw: string) => JSON.parse(raw) as Record<string, unknown>;

describe('notification channels', () => {
  let receiver: Receiver;
  let smtp: Awaited<ReturnType<typeof startSmtp>>;
  let t: TestHub;
  let base: string;
  let alertCount = 0;

  async function createChannel(body: Record<string, unknown>): Promise<NotificationChannel> {
    const res = await t.request('POST', '/api/settings/notifications/channels', { body });
    if (res.status !== 201) throw new Error(`channel create failed: ${String(res.status)} ${res.text}`);
    return res.json.data as NotificationChannel;
  }

  async function readChannel(id: string): Promise<NotificationChannel> {
    return (await t.request('GET', `/api/settings/notifications/channels/${id}`)).json
      .data as NotificationChannel;
  }

  async function remove(id: string): Promise<void> {
    expect((await t.request('DELETE', `/api/settings/notifications/channels/${id}`)).status).toBe(200);
  }

  function fire(type: 'alert.fired' | 'alert.resolved' = 'alert.fired'): string {
    alertCount += 1;
    const alertId = `alr_${String(alertCount)}`;
    t.hub.events.publish(type, alertPayload(alertId));
    return alertId;
  }

  beforeAll(async () => {
    receiver = await startReceiver(['hooks.test']);
    smtp = await startSmtp();
    t = await startTestHub({
      env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
      outbound: { resolver, ca: receiver.ca },
    });
    base = `https://hooks.test:${String(receiver.port)}`;
  });

  afterAll(async () => {
    await t.close();
    await smtp.close();
    await receiver.close();
  });

  it('sends a fired alert by email over SMTP, and keeps the password write-only', async () => {
    const channel = await createChannel({
      name: 'ops mail',
      kind: 'email',
      settings: {
        smtp_host: 'mail.test',
        smtp_port: smtp.port,
        smtp_security: 'none',
        smtp_username: 'hub',
        smtp_password: 'smtp-password-never-shown',
        from: 'hub@example.net',
        to: ['ops@example.net'],
      },
    });
    expect(channel.settings).toMatchObject({ smtp_password_set: true, to: ['ops@example.net'] });
    const alertId = fire();
    await until(async () => smtp.mails.length === 1 || (await readChannel(channel.id)).stats.failed > 0);
    expect((await readChannel(channel.id)).stats.last_error).toBeNull();
    const [mail] = smtp.mails;
    expect(mail).toMatchObject({ from: 'hub@example.net', to: ['ops@example.net'] });
    expect(mail?.raw).toContain('Subject: svc hub: alert.fired (warning)');
    expect(mail?.raw).toContain(alertId);
    await until(async () => (await readChannel(channel.id)).stats.sent === 1);
    for (const read of [
      await t.request('GET', `/api/settings/notifications/channels/${channel.id}`),
      await t.request('GET', '/api/settings/notifications/channels'),
    ]) {
      expect(read.status).toBe(200);
      expect(read.text).not.toContain('smtp-password-never-shown');
    }
    const stored = await t.hub.database.db
      .selectFrom('notification_channels')
      .selectAll()
      .where('id', '=', channel.id)
      .executeTakeFirstOrThrow();
    expect(JSON.stringify(stored)).not.toContain('smtp-password-never-shown');
    await remove(channel.id);
  });

  it('speaks each HTTP kind: generic webhook, ntfy, Slack and Discord', async () => {
    const kinds = ['webhook', 'ntfy', 'slack', 'discord'] as const;
    const channels = [];
    for (const kind of kinds) {
      channels.push(await createChannel({ name: kind, kind, settings: { url: `${base}/${kind}` } }));
    }
    const alertId = fire();
    await until(() => kinds.every((kind) => receiver.hits(`/${kind}`).length === 1));
    const [generic] = receiver.hits('/webhook');
    expect(bodyOf(generic?.body ?? '{}')).toMatchObject({
      type: 'svc.notification',
      severity: 'warning',
      alerts: [{ type: 'alert.fired', alert_id: alertId, severity: 'warning' }],
    });
    const [ntfy] = receiver.hits('/ntfy');
    expect(ntfy?.headers).toMatchObject({ title: 'svc hub: alert.fired (warning)', priority: '4' });
    expect(ntfy?.body).toContain(alertId);
    expect(String(bodyOf(receiver.hits('/slack')[0]?.body ?? '{}').text)).toContain(alertId);
    expect(String(bodyOf(receiver.hits('/discord')[0]?.body ?? '{}').content)).toContain(alertId);
    for (const channel of channels) await remove(channel.id);
  });

  it('coalesces a burst into one digest per window', async () => {
    const channel = await createChannel({
      name: 'digest',
      kind: 'webhook',
      settings: { url: `${base}/digest` },
      digest_window_s: 1,
    });
    const ids = [fire(), fire(), fire('alert.resolved')];
    await until(() => receiver.hits('/digest').length === 1, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.hits('/digest')).toHaveLength(1);
    const body = bodyOf(receiver.hits('/digest')[0]?.body ?? '{}');
    expect(body.title).toBe('svc hub: 3 alert events');
    expect((body.alerts as { alert_id: string }[]).map((a) => a.alert_id)).toEqual(ids);
    await remove(channel.id);
  });

  it('suppresses and counts alerts below the channel severity or in its quiet hours', async () => {
    // The test clock reads 12:00 UTC.
    const quiet = await createChannel({
      name: 'quiet',
      kind: 'slack',
      settings: { url: `${base}/quiet` },
      quiet_hours: { start: '11:00', end: '13:00', time_zone: 'UTC' },
    });
    const picky = await createChannel({
      name: 'picky',
      kind: 'slack',
      settings: { url: `${base}/picky` },
      min_severity: 'critical',
    });
    fire();
    await until(async () => (await readChannel(quiet.id)).stats.suppressed === 1);
    await until(async () => (await readChannel(picky.id)).stats.suppressed === 1);
    expect(receiver.hits('/quiet')).toHaveLength(0);
    expect(receiver.hits('/picky')).toHaveLength(0);
    await remove(quiet.id);
    await remove(picky.id);
  });

  it('sends a test notification on demand and reports a failing receiver', async () => {
    receiver.on('/broken', (res) => {
      res.statusCode = 502;
      res.end();
    });
    const good = await createChannel({ name: 'good', kind: 'discord', settings: { url: `${base}/good` } });
    const bad = await createChannel({ name: 'bad', kind: 'discord', settings: { url: `${base}/broken` } });
    const ok = await t.request('POST', `/api/settings/notifications/channels/${good.id}/test`);
    expect(ok.json.data as NotificationTestResult).toEqual({ sent: true, error: null });
    expect(receiver.hits('/good')).toHaveLength(1);
    const failed = await t.request('POST', `/api/settings/notifications/channels/${bad.id}/test`);
    expect(failed.json.data as NotificationTestResult).toEqual({
      sent: false,
      error: 'receiver answered 502',
    });
    expect((await readChannel(bad.id)).stats).toMatchObject({
      failed: 1,
      last_error: 'receiver answered 502',
    });
    await remove(good.id);
    await remove(bad.id);
  });

  it('answers 400 naming the field for bad channels', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ name: 'x', kind: 'email', settings: { from: 'a@b.c', to: ['d@e.f'] } }, 'settings.smtp_host'],
      [{ name: 'x', kind: 'ntfy', settings: {} }, 'settings.url'],
      [{ name: 'x', kind: 'ntfy', settings: { url: 'https://unknown.example/' } }, 'settings.url'],
      // Never sent (the client dials origin and path), and would be stored and shown back in clear.
      [
        { name: 'x', kind: 'slack', settings: { url: `${base.replace('://', '://user:secret@')}/x` } },
        'settings.url',
      ],
      [
        {
          name: 'x',
          kind: 'slack',
          settings: { url: `${base}/x` },
          quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Mars/Olympus' },
        },
        'quiet_hours.time_zone',
      ],
      [
        { name: 'x', kind: 'slack', settings: { url: `${base}/x` }, digest_window_s: 86_400 },
        'digest_window_s',
      ],
      [{ name: 'x', kind: 'pager', settings: {} }, 'kind'],
    ];
    for (const [body, field] of cases) {
      const res = await t.request('POST', '/api/settings/notifications/channels', { body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text).toContain(field);
    }
  });

  it('is for admins only, and audits every change', async () => {
    const operator = await t.createKey({ role: 'operator', scopes: ['*'] });
    const refused = await t.request('GET', '/api/settings/notifications/channels', { key: operator.raw_key });
    expect(refused.status).toBe(403);
    const channel = await createChannel({
      name: 'audited',
      kind: 'ntfy',
      settings: { url: `${base}/audited` },
    });
    await t.request('PATCH', `/api/settings/notifications/channels/${channel.id}`, {
      body: { enabled: false },
    });
    await remove(channel.id);
    const audit = await t.hub.database.db
      .selectFrom('audit_events')
      .select('action')
      .where('target_id', '=', channel.id)
      .orderBy('id')
      .execute();
    expect(audit.map((row) => row.action)).toEqual([
      'notification_channel.created',
      'notification_channel.updated',
      'notification_channel.deleted',
    ]);
  });

  it('says how many assets depend on the alert’s asset (its blast radius)', async () => {
    const db = await t.createAsset({ name: 'db' });
    const app = await t.createAsset({ name: 'app' });
    const web = await t.createAsset({ name: 'web' });
    for (const [from, to] of [
      [app.id, db.id],
      [web.id, app.id],
    ]) {
      const link = await t.request('POST', '/api/v2/dependencies/links', { body: { from, to } });
      expect(link.status, link.text).toBe(201);
    }
    const channels = [
      await createChannel({ name: 'impact hook', kind: 'webhook', settings: { url: `${base}/impact` } }),
      await createChannel({ name: 'impact ntfy', kind: 'ntfy', settings: { url: `${base}/impact-ntfy` } }),
    ];
    t.hub.events.publish('alert.fired', {
      ...alertPayload('alr_impact'),
      asset_ids: [db.id],
      asset_id: db.id,
    });
    // An asset nothing depends on gets no line.
    t.hub.events.publish('alert.fired', {
      ...alertPayload('alr_alone'),
      asset_ids: [web.id],
      asset_id: web.id,
    });
    await until(() => receiver.hits('/impact').length === 2 && receiver.hits('/impact-ntfy').length === 2);
    const bodies = receiver.hits('/impact').map((hit) => bodyOf(hit.body));
    const alerts = bodies.flatMap((b) => b.alerts as { alert_id: string; impact: string | null }[]);
    expect(alerts.find((a) => a.alert_id === 'alr_impact')?.impact).toBe(
      '2 assets depend on this (1 directly)',
    );
    expect(alerts.find((a) => a.alert_id === 'alr_alone')?.impact).toBeNull();
    const texts = receiver.hits('/impact-ntfy').map((hit) => hit.body);
    expect(texts.find((text) => text.includes('alr_impact'))).toContain(
      '\n  2 assets depend on this (1 directly)',
    );
    expect(texts.find((text) => text.includes('alr_alone'))).not.toContain('depend');
    for (const channel of channels) await remove(channel.id);
  });
});
