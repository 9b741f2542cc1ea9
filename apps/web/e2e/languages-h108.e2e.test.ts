/**
 * The phone app in other languages (decision 0090): its fleet, an asset (saved actions, power, remote
 * session), the alerts and the settings screens, signed in on /m/ with a phone's viewport. Once in the
 * pseudo-locale, every visible text carries its markers (names of assets and actions are data); once in
 * German, no missing message and each screen's heading found by its German name.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { Asset } from '@svc/protocol';
import { createManualAsset } from './fleet.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';
import { deliverPush, shownNotifications, until } from './push-delivery.js';

const h = useConsole({ plainHttp: true, notifications: true, viewport: { width: 390, height: 844 } });

let asset: Asset;

beforeAll(async () => {
  const t = h();
  asset = await createManualAsset(t, 'phone-i18n');
  const made = await t.api('POST', '/api/v2/actions', {
    name: 'uptime check',
    command: 'uptime',
    targets: [asset.id],
  });
  expect(made.status, made.text).toBe(201);
}, 60_000);

/** The phone's screens: path under /m/, and the level-1 heading each shows. */
function screens(): [path: string, heading: (lang: typeof de) => string][] {
  return [
    ['', (c) => c['mobile.fleet']],
    [`assets/${encodeURIComponent(asset.id)}`, () => asset.name],
    ['alerts', (c) => c['mobile.alerts']],
    ['settings', (c) => c['mobile.settings']],
  ];
}

/** Through the app's own sign-in form, in English (the language is chosen after), unless still signed in. */
async function signInOnPhone(page: Page, baseUrl: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/m/?lang=en`);
  const screen = page.locator('.m-main h1').first();
  const username = page.getByLabel('Username');
  await screen.or(username).first().waitFor();
  if (await screen.isVisible()) return;
  await username.fill('owner');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.locator('.m-main h1').first().waitFor();
}

async function openScreen(page: Page, url: string, heading: string): Promise<void> {
  await page.goto(url);
  await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
  await waitSettled(page);
}

describe('the phone app in other languages', () => {
  it('marks every visible text of its screens in the pseudo-locale', async () => {
    const t = h();
    const { page } = t;
    await signInOnPhone(page, t.baseUrl, t.ownerPassword ?? '');
    await page.goto(`${t.baseUrl}/m/?lang=pseudo`);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    const unmarked: Record<string, string[]> = {};
    for (const [path] of screens()) {
      await page.goto(`${t.baseUrl}/m/${path}`);
      await page.locator('.m-main h1').first().waitFor();
      await waitSettled(page);
      if (path.startsWith('assets/')) await page.getByText('uptime check', { exact: true }).waitFor();
      unmarked[path || 'fleet'] = await page.evaluate<string[]>(unmarkedTexts);
    }
    expect(unmarked).toEqual({
      fleet: [],
      [`assets/${encodeURIComponent(asset.id)}`]: [],
      alerts: [],
      settings: [],
    });
  }, 90_000);

  it('shows its screens in German with no missing message', async () => {
    const t = h();
    const { page } = t;
    await signInOnPhone(page, t.baseUrl, t.ownerPassword ?? '');
    await page.goto(`${t.baseUrl}/m/?lang=de`);
    for (const [path, heading] of screens()) {
      await openScreen(page, `${t.baseUrl}/m/${path}`, heading(de));
      await expectLanguage(page, 'de');
    }
    await page.goto(`${t.baseUrl}/m/assets/${encodeURIComponent(asset.id)}`);
    await page.getByRole('heading', { name: de['mobile.savedActions'], level: 2 }).waitFor();
    await page.getByRole('button', { name: de['mobile.openTerminal'] }).waitFor();
    await expectLanguage(page, 'de');
  }, 90_000);

  it("shows a push in the phone's language, without the details it hides", async () => {
    const t = h();
    const { page } = t;
    await signInOnPhone(page, t.baseUrl, t.ownerPassword ?? '');
    await page.goto(`${t.baseUrl}/m/?lang=de`);
    await page.getByRole('heading', { name: de['mobile.fleet'], level: 1 }).waitFor();
    await t.context.grantPermissions(['notifications'], { origin: t.baseUrl });
    await page.evaluate('navigator.serviceWorker.ready');
    const shared = `new Promise((resolve) => {
      const open = indexedDB.open('svc-mobile');
      open.onerror = () => resolve(false);
      open.onsuccess = () => {
        const get = open.result.transaction('kv').objectStore('kv').get('pushTexts');
        get.onerror = () => resolve(false);
        get.onsuccess = () => {
          open.result.close();
          resolve(get.result?.locked === ${JSON.stringify(de['mobile.pushLocked'])});
        };
      };
    })`;
    await until('the app shared its German notification texts', () => page.evaluate<boolean>(shared));
    // What the hub pushes for two alerts (notifications.module.ts); the app chose German before it came.
    const payload = {
      kind: 'alerts',
      title: 'phone-i18n is offline',
      severity: 'critical',
      alerts: [
        { alert_id: 'alt-1', asset_id: asset.id, summary: 'phone-i18n is offline' },
        { alert_id: 'alt-2', asset_id: asset.id, summary: 'phone-i18n: disk full' },
      ],
      more: 0,
    };
    await deliverPush(t, JSON.stringify(payload));
    const shown = await shownNotifications(t);
    const severity = de['alert.severity'].match(/critical \{([^}]*)\}/)?.[1] ?? 'critical';
    expect(shown).toEqual([
      {
        title: de['mobile.pushAlertsMany'].replace('{count}', '2').replace('{severity}', severity),
        body: de['mobile.pushLocked'],
      },
    ]);
    expect(JSON.stringify(shown)).not.toContain('phone-i18n');
  }, 90_000);
});
