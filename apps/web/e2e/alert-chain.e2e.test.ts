/**
 * The live feed chained end to end (issue 14, "Done when"): a real hub process, a fake agent, an offline
 * rule with no wait. The agent stopped fires an alert that reaches, within seconds, the event stream (an API
 * key's subscriber and the console's live panel), a signed webhook (a local receiver checking it with the
 * SDK's reference verifier) and an email (an SMTP server from `smtp-server` on loopback). Two consoles are
 * open on the Alerts page; the alert acknowledged in one shows in the other at once, from the event stream:
 * that page is never reloaded, and its polling is a minute apart while the feed is live.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { SMTPServer } from 'smtp-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { Alert, EventEnvelope } from '@svc/protocol';
import { verifyWebhookSignature } from '@svc/sdk/webhooks';
import { connectFakeAgent, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';

const h = useConsole({
  env: {
    SVC_ALERT_INTERVAL_S: '1',
    SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
    SVC_OUTBOUND_ALLOW_INSECURE: 'true',
  },
});

/** "Within seconds": each leg of the chain, from the agent stopping. */
const withinMs = 10_000;
/** Well under the one-minute polling of a live page: what shows in this time came through the feed. */
const liveMs = 5_000;

const hooks: { headers: IncomingHttpHeaders; body: string; at: number }[] = [];
const mails: { to: string[]; raw: string; at: number }[] = [];
const streamed: (EventEnvelope & { at: number })[] = [];
let hookServer: Server;
let smtp: SMTPServer;
let stream: WebSocket | null = null;
let fake: EnrolledFake | null = null;

const portOf = (server: Server) => (server.address() as AddressInfo).port;

beforeAll(async () => {
  hookServer = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
      res.end('ok');
    });
  });
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  smtp = new SMTPServer({
    secure: false,
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(data, session, callback) {
      const chunks: Buffer[] = [];
      data.on('data', (chunk: Buffer) => chunks.push(chunk));
      data.on('end', () => {
        mails.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
});

afterAll(async () => {
  stream?.close();
  fake?.agent.close();
  hookServer.closeAllConnections();
  await new Promise<void>((resolve) => {
    hookServer.close(() => {
      resolve();
    });
  });
  await new Promise<void>((resolve) => {
    smtp.close(() => {
      resolve();
    });
  });
});

/** Polls until `check` holds; bounded. */
async function until(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not reached in time`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The Alerts page in a console of its own: a fresh browser context, signed in through the form. */
async function openSecondConsole(credentials: { username: string; password: string }): Promise<Page> {
  const t = h();
  const context = await t.browser.newContext({
    ignoreHTTPSErrors: true,
    viewport: { width: 1280, height: 800 },
  });
  context.setDefaultTimeout(8_000);
  const page = await context.newPage();
  await page.goto(`${t.baseUrl}/dashboard`);
  await page.getByLabel('Username').fill(credentials.username);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('live-state').getByText('Live').waitFor();
  await page.getByRole('link', { name: 'Alerts', exact: true }).click();
  await page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
  return page;
}

describe('an agent stopped, chained through the live feed', () => {
  it('fires an alert to the stream, a webhook and an email within seconds; an acknowledgement shows on another console at once', async () => {
    const t = h();
    fake = await connectFakeAgent(t, 'chain-box', {});
    const rule = await t.api('POST', '/api/v2/alerts/rules', {
      name: 'chain-box gone',
      kind: 'offline',
      severity: 'critical',
      duration_minutes: 0,
      asset_ids: [fake.assetId],
    });
    expect(rule.status, rule.text).toBe(201);
    const hook = await t.api('POST', '/api/v2/webhooks', {
      name: 'pager',
      url: `http://127.0.0.1:${String(portOf(hookServer))}/alerts`,
      events: ['alert.fired', 'alert.acknowledged'],
    });
    expect(hook.status, hook.text).toBe(201);
    const { secret } = hook.json.data as { secret: string };
    const channel = await t.api('POST', '/api/settings/notifications/channels', {
      name: 'on-call mail',
      kind: 'email',
      settings: {
        smtp_host: '127.0.0.1',
        smtp_port: (smtp.server.address() as AddressInfo).port,
        smtp_security: 'none',
        from: 'hub@example.net',
        to: ['oncall@example.net'],
      },
    });
    expect(channel.status, channel.text).toBe(201);

    // An API key's subscriber on the stream.
    stream = new WebSocket(`${t.baseUrl.replace('https:', 'wss:')}/api/v2/events/stream?types=alert.fired`, {
      headers: { authorization: `Bearer ${t.ownerKey ?? ''}` },
      rejectUnauthorized: false,
    });
    stream.on('message', (data: Buffer) => {
      streamed.push({ ...(JSON.parse(data.toString('utf8')) as EventEnvelope), at: Date.now() });
    });
    await new Promise<void>((resolve, reject) => {
      stream?.once('open', () => {
        resolve();
      });
      stream?.once('error', reject);
    });

    // Console one on the dashboard (its live panel), console two on the Alerts page.
    const owner = await t.signIn('owner');
    await t.page.getByTestId('live-state').getByText('Live').waitFor();
    const second = await openSecondConsole(owner);
    let reloads = 0;
    second.on('framenavigated', (frame) => {
      if (frame === second.mainFrame()) reloads += 1;
    });
    await second.getByText('No alerts').waitFor();

    const stoppedAt = Date.now();
    fake.agent.close();

    await until(() => streamed.some((e) => e.type === 'alert.fired'), 'the alert on the stream', withinMs);
    const fired = streamed.find((e) => e.type === 'alert.fired');
    if (fired?.type !== 'alert.fired') throw new Error('no alert.fired');
    expect(fired.data).toMatchObject({ asset_id: fake.assetId, severity: 'critical' });
    await t.page
      .getByRole('list', { name: 'Live events' })
      .getByText(/^alert\.fired/)
      .first()
      .waitFor({ timeout: withinMs });

    await until(() => hooks.length > 0, 'the webhook delivery', withinMs);
    const [delivery] = hooks;
    if (!delivery) throw new Error('no delivery');
    const header = (name: string) => String(delivery.headers[name]);
    expect(
      verifyWebhookSignature({
        secret,
        timestamp: header('x-svc-timestamp'),
        body: delivery.body,
        signature: header('x-svc-signature-256'),
      }),
    ).toEqual({ valid: true });
    expect(JSON.parse(delivery.body)).toMatchObject({
      type: 'alert.fired',
      data: { alert_id: fired.data.alert_id, asset_id: fake.assetId, asset_name: 'chain-box' },
    });

    await until(() => mails.length > 0, 'the email', withinMs);
    expect(mails[0]?.to).toEqual(['oncall@example.net']);
    expect(mails[0]?.raw).toContain('Subject: svc hub: alert.fired (critical)');
    expect(mails[0]?.raw).toContain('chain-box: offline');

    for (const at of [fired.at, delivery.at, mails[0]?.at ?? Infinity]) {
      expect(at - stoppedAt).toBeLessThan(withinMs);
    }

    // The second console shows the alert from the feed, without a reload.
    const alertId = fired.data.alert_id;
    const secondRow = second.locator(`tr[data-alert-id="${alertId}"]`);
    await secondRow.locator('.alert-status', { hasText: 'firing' }).waitFor({ timeout: liveMs });

    // Acknowledged in console one...
    await t.page.getByRole('link', { name: 'Alerts', exact: true }).click();
    const firstRow = t.page.locator(`tr[data-alert-id="${alertId}"]`);
    await firstRow.getByRole('button', { name: 'Acknowledge' }).click();
    const ackedAt = Date.now();
    await firstRow.locator('.alert-status', { hasText: 'acknowledged' }).waitFor();
    // ...shows in console two at once.
    await secondRow.locator('.alert-status', { hasText: 'acknowledged' }).waitFor({ timeout: liveMs });
    expect(Date.now() - ackedAt).toBeLessThan(liveMs);
    expect(reloads).toBe(0);
    const read = (await t.api('GET', `/api/v2/alerts`)).json.data as Alert[];
    expect(read.find((a) => a.id === alertId)?.status).toBe('acknowledged');
    await until(
      () => hooks.some((d) => d.body.includes('"alert.acknowledged"')),
      'the acknowledgement webhook',
    );
    expect(t.cspViolations).toEqual([]);
    await second.context().close();
  }, 120_000);
});
