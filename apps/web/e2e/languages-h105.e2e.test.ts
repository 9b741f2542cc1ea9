/**
 * The maintenance, notifications and webhooks pages in other languages (decision 0090): each page and its
 * form and confirmation dialogs in the pseudo-locale, where every visible text must come from a catalogue
 * (names, addresses, cron lines and zones marked as data), then in German, with no missing key and the
 * table found by its German name.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MessageKey } from '../src/i18n/messages/en.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const h = useConsole({
  env: { SVC_OUTBOUND_ALLOW_LOOPBACK: 'true', SVC_OUTBOUND_ALLOW_INSECURE: 'true' },
});

const pages: [path: string, table: MessageKey][] = [
  ['maintenance', 'maintenance.windows'],
  ['notifications', 'notifications.channels'],
  ['webhooks', 'webhooks.title'],
];

beforeAll(async () => {
  const t = h();
  await t.signIn('owner');
  const asset = (await t.api('POST', '/api/v2/assets', { name: 'i18n-db' })).json.data as { id: string };
  const now = Date.now();
  const made = [
    await t.api('POST', '/api/v2/maintenance/windows', {
      name: 'patch night',
      reason: 'kernel updates',
      asset_ids: [asset.id],
      cron: '0 2 * * 0',
      duration_minutes: 90,
      timezone: 'Europe/Berlin',
    }),
    await t.api('POST', '/api/v2/maintenance/windows', {
      name: 'disk swap',
      reason: 'replacing disks',
      asset_ids: [asset.id],
      starts_at: new Date(now - 60_000).toISOString(),
      ends_at: new Date(now + 3_600_000).toISOString(),
    }),
    await t.api('POST', '/api/settings/notifications/channels', {
      name: 'phone',
      kind: 'ntfy',
      settings: { url: 'http://127.0.0.1:9/alerts' },
      min_severity: 'warning',
      quiet_hours: { start: '22:00', end: '07:00', time_zone: 'Europe/Berlin' },
      digest_window_s: 60,
    }),
    await t.api('POST', '/api/v2/webhooks', { name: 'receiver', url: 'http://127.0.0.1:9/hook' }),
  ];
  expect(made.map((answer) => answer.status)).toEqual([201, 201, 201, 201]);
}, 60_000);

async function openPage(page: Page, url: string): Promise<void> {
  await page.goto(url);
  await page.locator('.data-table tbody tr').first().waitFor();
  await waitSettled(page);
}

describe('the maintenance, notifications and webhooks pages in other languages', () => {
  it('marks every visible text of the pages and their dialogs in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    await page.goto(`${t.baseUrl}/maintenance?lang=pseudo`);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    const unmarked: Record<string, string[]> = {};
    const look = async (name: string) => {
      unmarked[name] = await page.evaluate<string[]>(unmarkedTexts);
    };
    const inDialog = async (name: string, open: () => Promise<void>) => {
      await open();
      await page.getByRole('dialog').waitFor();
      await waitSettled(page);
      await look(name);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    };
    const newButton = () => page.locator('.page-header button.primary').first();
    const rowButton = (index: number) => page.locator('.row-actions').first().locator('button').nth(index);

    await openPage(page, `${t.baseUrl}/maintenance`);
    await look('maintenance');
    await inDialog('newWindow', () => newButton().click());
    await inDialog('editWindow', () => page.locator('.row-actions button').first().click());
    await inDialog('removeWindow', () => page.locator('.row-actions button.danger').first().click());

    await openPage(page, `${t.baseUrl}/notifications`);
    await page.locator('.row-actions button').first().click();
    await page.locator('[role="status"]').first().waitFor();
    await look('notifications');
    await inDialog('newChannel', () => newButton().click());
    await inDialog('editChannel', () => rowButton(1).click());
    await inDialog('deleteChannel', () => page.locator('.row-actions button.danger').first().click());

    await openPage(page, `${t.baseUrl}/webhooks`);
    await page.locator('.row-actions button').first().click();
    await page.locator('[role="status"]').first().waitFor();
    await look('webhooks');
    await inDialog('newWebhook', () => newButton().click());
    await inDialog('editWebhook', () => rowButton(1).click());
    await inDialog('deleteWebhook', () => page.locator('.row-actions button.danger').first().click());

    expect(unmarked).toEqual({
      maintenance: [],
      newWindow: [],
      editWindow: [],
      removeWindow: [],
      notifications: [],
      newChannel: [],
      editChannel: [],
      deleteChannel: [],
      webhooks: [],
      newWebhook: [],
      editWebhook: [],
      deleteWebhook: [],
    });
  }, 120_000);

  it('shows the pages in German with no missing message', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    await page.goto(`${t.baseUrl}/maintenance?lang=de`);
    for (const [path, table] of pages) {
      await page.goto(`${t.baseUrl}/${path}`);
      await page.getByRole('table', { name: de[table] }).locator('tbody tr').first().waitFor();
      await waitSettled(page);
      await expectLanguage(page, 'de');
    }
    await page.getByRole('button', { name: de['webhooks.new'] }).click();
    await page
      .getByRole('dialog', { name: de['webhooks.new'] })
      .getByText(de['webhooks.eventsLegend'])
      .waitFor();
    await expectLanguage(page, 'de');
  }, 90_000);
});
