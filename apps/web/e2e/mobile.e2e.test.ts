/**
 * The mobile companion in chromium with a phone's viewport, against a real hub on http://localhost (a secure
 * context without a certificate, so the service worker, Web Push and WebAuthn run):
 * - it installs: the manifest parses without errors (CDP Page.getAppManifest) with real PNG icons, and the
 *   service worker is active for /m/;
 * - its shell loads offline (context.setOffline) with the last fleet state, marked stale;
 * - saved-action runs taken while the hub process is stopped (harness stopHub) are shown as queued and
 *   replayed once when it is started again on the same data and port: the hub's audit trail counts one run, a
 *   replay of the same Idempotency-Key runs nothing, a run of a deleted action is dropped with the hub's reason;
 * - push: the device's subscription names the test's Web Push service (chromium here reaches no real one); the
 *   hub's message is checked (VAPID, decrypted) there, quiet hours hold back the warning alert, and the decrypted
 *   message is delivered to the service worker through CDP ServiceWorker.deliverPushMessage, which shows it;
 * - a quick action needs the device owner: a CDP virtual platform authenticator with user verification;
 * - sign-out leaves nothing behind: localStorage (but the device's settings), IndexedDB, Cache Storage, the
 *   session cookie, and the push subscription at the hub.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Alert, Asset, SavedAction } from '@svc/protocol';
import { startFakePushService, type FakePushService } from '@svc/testkit';
import { connectFakeAgent, createManualAsset, type EnrolledFake } from './fleet.js';
import { accessibilityProblems } from './axe.js';
import { useConsole } from './harness.js';
import { deliverPush, shownNotifications, until } from './push-delivery.js';

const h = useConsole({
  plainHttp: true,
  notifications: true,
  viewport: { width: 390, height: 844 },
  env: {
    SVC_ALERT_INTERVAL_S: '1',
    SVC_OUTBOUND_ALLOW_LOOPBACK: 'true',
    SVC_OUTBOUND_ALLOW_INSECURE: 'true',
  },
});

let push: FakePushService;
const fakes: EnrolledFake[] = [];
let asset: Asset;
let action: SavedAction;
let doomed: SavedAction;

beforeAll(async () => {
  push = await startFakePushService();
});

afterAll(async () => {
  for (const fake of fakes) fake.agent.close();
  await push.close();
});

function utcClock(ms: number): string {
  const d = new Date(ms);
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

async function signInOnPhone(): Promise<void> {
  const t = h();
  await t.page.goto(`${t.baseUrl}/m/`);
  await t.page.getByLabel('Username').fill('owner');
  await t.page.getByLabel('Password').fill(t.ownerPassword ?? '');
  await t.page.getByRole('button', { name: 'Sign in' }).click();
  await t.page.getByRole('heading', { name: 'Fleet', level: 1 }).waitFor();
}

async function auditRuns(actionId: string): Promise<number> {
  const res = await h().api('GET', `/api/v2/audit/events?action=action.run&target_id=${actionId}`);
  return res.json.meta?.total ?? -1;
}

// Most tests run axe in both themes on their screen: a few seconds past the default 20 s on a loaded machine.
describe('the mobile companion', { timeout: 60_000 }, () => {
  it('installs: a valid manifest with real icons, and a service worker for /m/', async () => {
    const t = h();
    asset = await createManualAsset(t, 'phone-box');
    const made = await t.api('POST', '/api/v2/actions', {
      name: 'uptime check',
      command: 'uptime',
      targets: [asset.id],
    });
    expect(made.status, made.text).toBe(201);
    action = made.json.data as SavedAction;
    const other = await t.api('POST', '/api/v2/actions', {
      name: 'doomed',
      command: 'true',
      targets: [asset.id],
    });
    doomed = other.json.data as SavedAction;
    await t.context.grantPermissions(['notifications'], { origin: t.baseUrl });

    await signInOnPhone();
    await t.page.getByRole('link', { name: /phone-box/ }).waitFor();
    // Browser code as text: this program has Node's types, not the DOM's.
    const scope = await t.page.evaluate('navigator.serviceWorker.ready.then((r) => r.scope)');
    expect(scope).toBe(`${t.baseUrl}/m/`);

    const cdp = await t.context.newCDPSession(t.page);
    const manifest = (await cdp.send('Page.getAppManifest')) as {
      url: string;
      errors: unknown[];
      data?: string;
    };
    expect(manifest.url).toBe(`${t.baseUrl}/m/manifest.webmanifest`);
    expect(manifest.errors).toEqual([]);
    const data = JSON.parse(manifest.data ?? '{}') as {
      start_url: string;
      scope: string;
      display: string;
      icons: { src: string; sizes: string; type: string }[];
    };
    expect(data).toMatchObject({ start_url: '/m/', scope: '/m/', display: 'standalone' });
    for (const icon of data.icons) {
      const answer = await fetch(new URL(icon.src, t.baseUrl));
      expect(answer.headers.get('content-type')).toBe('image/png');
      const bytes = Buffer.from(await answer.arrayBuffer());
      expect(bytes.subarray(1, 4).toString('ascii')).toBe('PNG');
      const [width, height] = icon.sizes.split('x').map(Number);
      expect([bytes.readUInt32BE(16), bytes.readUInt32BE(20)]).toEqual([width, height]);
    }
    expect(t.cspViolations).toEqual([]);
    await t.screenshot('mobile-fleet');
    expect.soft(await accessibilityProblems(t.page, 'the phone fleet')).toEqual([]);
  });

  it('opens offline on the last fleet state, marked stale', async () => {
    const t = h();
    // Online once on the asset's page: its saved actions are kept for offline use.
    await t.page.getByRole('link', { name: /phone-box/ }).click();
    await t.page.getByRole('button', { name: 'Run uptime check' }).waitFor();
    await t.screenshot('mobile-asset');
    expect.soft(await accessibilityProblems(t.page, 'the phone asset')).toEqual([]);
    await t.page.reload();
    await until('the service worker controls the page', () =>
      t.page.evaluate<boolean>('navigator.serviceWorker.controller !== null'),
    );

    await t.context.setOffline(true);
    const failed: string[] = [];
    const noteFailure = (request: { url(): string }) => failed.push(request.url());
    t.page.on('requestfailed', noteFailure);
    await t.page.goto(`${t.baseUrl}/m/`);
    await t.page.getByText(/Offline — showing last known state/).waitFor();
    await t.page.getByRole('link', { name: /phone-box/ }).waitFor();
    // Every icon the manifest names comes from the worker's cache (the apple-touch one, asked for offline too).
    const icons = await t.page.evaluate(`Promise.all(
      ['/m/icons/apple-touch-icon-180.png', '/m/icons/icon-maskable-512.png', '/m/icons/icon-192.png'].map(
        (src) => fetch(src).then((r) => r.status + ' ' + r.headers.get('content-type'), (e) => src + ': ' + e),
      ),
    )`);
    expect(icons).toEqual(['200 image/png', '200 image/png', '200 image/png']);
    t.page.off('requestfailed', noteFailure);
    expect(failed.filter((url) => url.includes('/m/'))).toEqual([]);
    await t.screenshot('mobile-offline');
    expect.soft(await accessibilityProblems(t.page, 'the phone fleet offline')).toEqual([]);
  });

  it('queues runs taken while the hub is stopped and replays each once when it is back', async () => {
    const t = h();
    // Online again, on the asset's page with its saved actions listed.
    await t.context.setOffline(false);
    // The list is shown at once from the phone's copy; the hub's answer must be in before the action goes, or
    // it would take the action off the page.
    const listed = t.page.waitForResponse(
      (answer) => answer.request().method() === 'GET' && /\/api\/v2\/actions\?/.test(answer.url()),
    );
    await t.page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
    await t.page.getByText('Live').waitFor();
    expect((await listed).status()).toBe(200);
    await t.page.getByRole('button', { name: 'Run doomed' }).waitFor();
    // The hub will refuse the second one when it is replayed: its action is gone (the page still lists it).
    expect((await t.api('DELETE', `/api/v2/actions/${doomed.id}`)).status).toBe(200);
    expect(await auditRuns(action.id)).toBe(0);

    // The hub process stops; the phone's network is up, so nothing but the failed request tells the app.
    await t.stopHub();
    await t.page.getByRole('button', { name: 'Run uptime check' }).click();
    await t.page.getByText('uptime check: queued until the hub is reachable').waitFor();
    // The app now knows the hub is unreachable and says so.
    await t.page.getByText(/Offline — showing last known state/).waitFor();
    await t.page.getByRole('button', { name: 'Run doomed' }).click();
    const queue = t.page.getByRole('list', { name: 'Queued actions' });
    await expect.poll(() => queue.getByText('queued', { exact: true }).count()).toBe(2);
    await t.screenshot('mobile-queued');
    expect.soft(await accessibilityProblems(t.page, 'the phone asset with queued runs')).toEqual([]);

    // Back on the same data and port: the app's retry finds it and sends each entry once.
    await t.startHub();
    await queue
      .getByText(/done: ran: 0 of 1 ok/)
      .waitFor({ timeout: 20_000 })
      .catch(async (error: unknown) => {
        throw new Error(`${String(error)}\nqueue: ${await queue.innerText()}`);
      });
    await queue.getByText(/dropped: .*(no saved action|not found|No saved action)/i).waitFor();
    expect(await auditRuns(action.id)).toBe(1);
    expect(await auditRuns(doomed.id)).toBe(0);

    // A replay of the same key (a lost answer, a second tab) answers the first run and runs nothing.
    const key = await t.page.evaluate<string>(`new Promise((resolve, reject) => {
      const open = indexedDB.open('svc-mobile', 1);
      open.onsuccess = () => {
        const all = open.result.transaction('queue').objectStore('queue').getAll();
        all.onsuccess = () => {
          const entry = all.result.find((e) => e.actionName === 'uptime check');
          open.result.close();
          if (entry) resolve(entry.key);
          else reject(new Error('no queued entry'));
        };
      };
    })`);
    const replay = await t.page.evaluate(
      async ([id, k]) => {
        const answer = await fetch(`/api/v2/actions/${id}/run`, {
          method: 'POST',
          headers: { 'idempotency-key': k },
        });
        return answer.status;
      },
      [action.id, key] as const,
    );
    expect(replay).toBe(200);
    expect(await auditRuns(action.id)).toBe(1);
  });

  it('goes live without navigation when a run queued in an app opened while the hub was down is replayed', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
    await t.page.getByText('Live').waitFor();
    await t.page.getByRole('button', { name: 'Run uptime check' }).waitFor();
    const runsBefore = await auditRuns(action.id);

    // Opened while the hub is down: the worker's shell and the saved fleet state, the bar says so.
    await t.stopHub();
    await t.page.reload();
    const offline = t.page.getByText(/Offline — showing last known state/);
    await offline.waitFor();
    await t.page.getByRole('button', { name: 'Run uptime check' }).click();
    await t.page.getByText('uptime check: queued until the hub is reachable').waitFor();

    // Back: the run is replayed, and the bar says Live on this same page.
    await t.startHub();
    await until(
      'the queued run replayed',
      async () => (await auditRuns(action.id)) === runsBefore + 1,
      30_000,
    );
    await t.page.getByText('Live', { exact: true }).waitFor({ timeout: 15_000 });
    expect(await offline.count()).toBe(0);
    expect(new URL(t.page.url()).pathname).toBe(`/m/assets/${encodeURIComponent(asset.id)}`);
  }, 60_000);

  it('notices the hub answering again with nothing queued and no event socket to reopen', async () => {
    const t = h();
    // Neither a queue replay nor the event socket reopening can tell the app: only its probe can.
    await t.page.goto(`${t.baseUrl}/m/settings`);
    await t.page.getByLabel('Queue actions while the hub is unreachable').uncheck();
    await t.page.getByLabel('Reconnect after a dropped connection').uncheck();
    await t.page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
    await t.page.getByText('Live').waitFor();

    await t.stopHub();
    await t.page.getByRole('button', { name: 'Run uptime check' }).click();
    await t.page.getByText(/Offline — showing last known state/).waitFor();
    await t.startHub();
    await t.page.getByText('Live').waitFor({ timeout: 12_000 });
    expect(await t.page.getByText(/Offline — showing last known state/).count()).toBe(0);

    await t.page.goto(`${t.baseUrl}/m/settings`);
    await t.page.getByLabel('Queue actions while the hub is unreachable').check();
    await t.page.getByLabel('Reconnect after a dropped connection').check();
  });

  it('gets push alerts through the Web Push service, quiet hours holding back all but critical', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/m/`);
    await t.page.getByText('Live').waitFor();
    const device = push.subscribe();
    const now = Date.now();
    // The app's own device id, so its sign-out finds this subscription as this device's.
    await t.page.evaluate(`localStorage.setItem('svc.mobile.deviceId', 'dev-phone-under-test')`);
    const subscribed = await t.page.evaluate(
      async (body) => {
        const answer = await fetch('/api/notifications/push/subscriptions', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return answer.status;
      },
      {
        device_id: 'dev-phone-under-test',
        endpoint: device.endpoint,
        keys: device.keys,
        min_severity: 'warning',
        quiet_hours: { start: utcClock(now - 3_600_000), end: utcClock(now + 3_600_000), time_zone: 'UTC' },
        digest_window_s: 0,
      },
    );
    expect(subscribed).toBe(201);

    const fake = await connectFakeAgent(t, 'push-box', {});
    fakes.push(fake);
    for (const severity of ['warning', 'critical'] as const) {
      const rule = await t.api('POST', '/api/v2/alerts/rules', {
        name: `push-box gone (${severity})`,
        kind: 'offline',
        severity,
        duration_minutes: 0,
        asset_ids: [fake.assetId],
      });
      expect(rule.status, rule.text).toBe(201);
    }
    fake.agent.close();

    const alerts = await until('both alerts fired', async () => {
      const res = await t.api('GET', `/api/v2/alerts?status=active&asset=${fake.assetId}`);
      const list = res.json.data as Alert[];
      return list.length === 2 ? list : undefined;
    });
    const critical = alerts.find((a) => a.severity === 'critical');
    const warning = alerts.find((a) => a.severity === 'warning');
    const message = await until('the critical alert pushed', () =>
      Promise.resolve(
        push.messages.find((m) => m.subscriptionId === device.id && m.payload.includes(critical?.id ?? '-')),
      ),
    );
    // Give the held-back warning time to arrive, were it not held back.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const payloads = push.messages.filter((m) => m.subscriptionId === device.id).map((m) => m.payload);
    expect(payloads.some((p) => p.includes(warning?.id ?? '-'))).toBe(false);
    expect(push.refusals).toEqual([]);

    // Delivered to the service worker as a push service would: it shows the (redacted) notification.
    await deliverPush(t, message.payload);
    const shown = await shownNotifications(t);
    expect(shown).toContainEqual({ title: 'An alert (critical)', body: 'Unlock the app to see details' });
  });

  it('needs the device owner (a platform authenticator with user verification) for a quick action', async () => {
    const t = h();
    const cdp = await t.context.newCDPSession(t.page);
    await cdp.send('WebAuthn.enable');
    const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: {
        protocol: 'ctap2',
        transport: 'internal',
        hasResidentKey: true,
        hasUserVerification: true,
        isUserVerified: true,
        automaticPresenceSimulation: true,
      },
    });

    await t.page.getByRole('link', { name: 'Alerts' }).click();
    await t.page.getByRole('heading', { name: 'Alerts', level: 1 }).waitFor();
    await t.screenshot('mobile-alerts');
    expect.soft(await accessibilityProblems(t.page, 'the phone alerts')).toEqual([]);
    const firstCritical = t.page
      .getByRole('list', { name: 'Active alerts' })
      .getByRole('listitem')
      .filter({ hasText: 'critical' })
      .first();
    await firstCritical.getByRole('button', { name: 'Acknowledge' }).click();
    await until('the alert acknowledged at the hub', async () => {
      const res = await t.api('GET', '/api/v2/alerts?status=acknowledged');
      return (res.json.data as Alert[]).some((a) => a.severity === 'critical') || undefined;
    });
    const credentials = (await cdp.send('WebAuthn.getCredentials', { authenticatorId })) as {
      credentials: unknown[];
    };
    expect(credentials.credentials).toHaveLength(1);
    // A terminal session opens behind the same check: mobile-terminal.e2e.test.ts.
  });

  it('lays out each setting as a row: its label, its checkbox beside it on the same line', async () => {
    const t = h();
    await t.page.goto(`${t.baseUrl}/m/settings`);
    const behaviour = t.page.getByRole('group', { name: 'Behaviour' });
    await behaviour.getByRole('checkbox').first().waitFor();
    const rows = await t.page.evaluate<
      {
        label: string;
        boxTop: number;
        boxMiddle: number;
        boxLeft: number;
        textTop: number;
        textBottom: number;
        textRight: number;
      }[]
    >(`[...document.querySelector('fieldset').querySelectorAll('label')].map((label) => {
      const box = label.querySelector('input').getBoundingClientRect();
      const text = label.querySelector('span').getBoundingClientRect();
      return {
        label: label.textContent,
        boxTop: box.top,
        boxMiddle: box.top + box.height / 2,
        boxLeft: box.left,
        textTop: text.top,
        textBottom: text.bottom,
        textRight: text.right,
      };
    })`);
    expect(rows.length).toBeGreaterThan(5);
    for (const row of rows) {
      // On the text's line (a label that wraps keeps its checkbox beside it), and to its right.
      expect(row.boxMiddle, JSON.stringify(row)).toBeGreaterThanOrEqual(row.textTop);
      expect(row.boxMiddle, JSON.stringify(row)).toBeLessThanOrEqual(row.textBottom);
      expect(row.boxLeft, JSON.stringify(row)).toBeGreaterThanOrEqual(row.textRight);
    }
    const oneLine = rows.filter((row) => row.textBottom - row.textTop < 30);
    expect(oneLine.length).toBeGreaterThan(0);
    for (const row of oneLine)
      expect(Math.abs(row.boxTop - row.textTop), JSON.stringify(row)).toBeLessThanOrEqual(4);
  });

  it('signs out leaving nothing behind', async () => {
    const t = h();
    await t.page.getByRole('link', { name: 'Settings' }).click();
    await t.page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await t.page.getByLabel('Connection diagnostics banner').check();
    await t.screenshot('mobile-settings');
    expect.soft(await accessibilityProblems(t.page, 'the phone settings')).toEqual([]);
    const before = await t.page.evaluate(
      async () =>
        (await fetch('/api/notifications/push/subscriptions')).json() as Promise<{ data: unknown[] }>,
    );
    expect(before.data).toHaveLength(1);

    await t.page.getByRole('button', { name: 'Sign out' }).click();
    await t.page.getByLabel('Username').waitFor();
    expect.soft(await accessibilityProblems(t.page, 'the phone sign-in')).toEqual([]);
    const left = await t.page.evaluate<{
      local: string[];
      databases: string[];
      caches: string[];
      worker: unknown;
    }>(`(async () => ({
      local: Object.keys(localStorage),
      databases: (await indexedDB.databases()).map((d) => d.name),
      caches: await caches.keys(),
      worker: (await navigator.serviceWorker.getRegistration('/m/')) ?? null,
    }))()`);
    expect(left.local.every((k) => k.startsWith('svc.settings.'))).toBe(true);
    expect(left.local).toContain('svc.settings.connectionDebugBanner');
    expect(left.databases).not.toContain('svc-mobile');
    expect(left.caches).toEqual([]);
    // The worker, and with it the browser's push subscription, is gone too.
    expect(left.worker).toBeNull();
    expect((await t.context.cookies()).map((c) => c.name)).not.toContain('svc_session');

    await signInOnPhone();
    const after = await t.page.evaluate(
      async () =>
        (await fetch('/api/notifications/push/subscriptions')).json() as Promise<{ data: unknown[] }>,
    );
    expect(after.data).toEqual([]);
  });
});
