/**
 * Saved actions, incidents, discovery, connectors, dependencies, TLS and Prometheus in other languages
 * (decision 0090): each page and its main dialogs in the pseudo-locale, where every visible text must come
 * from a catalogue (names, addresses and the hub's words marked as data), then in German, with no missing
 * key and a heading found by its German name.
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { createManualAsset } from './fleet.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const h = useConsole();

async function look(page: Page): Promise<string[]> {
  await waitSettled(page);
  return page.evaluate<string[]>(unmarkedTexts);
}

describe('actions, incidents, discovery, connectors, dependencies, TLS, Prometheus in other languages', () => {
  it('marks every visible text of the pages and their dialogs in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const asset = await createManualAsset(t, 'i18n-box');
    const made = await t.api('POST', '/api/v2/actions', {
      name: 'uptime check',
      command: 'uptime',
      targets: [asset.id],
    });
    expect(made.status, made.text).toBe(201);

    const unmarked: Record<string, string[]> = {};
    const inDialog = async (name: string, open: () => Promise<void>) => {
      await open();
      await page.getByRole('dialog').waitFor();
      unmarked[name] = await look(page);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    };

    await page.goto(`${t.baseUrl}/actions?lang=pseudo`);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    const row = page.locator('tr[data-action-id]').first();
    await row.waitFor();
    unmarked.actions = await look(page);
    await inDialog('deleteAction', () => row.locator('button.danger').click());
    await page.locator('.page-header button.primary').click();
    await page.locator('form.run-form').waitFor();
    unmarked.actionForm = await look(page);

    await page.goto(`${t.baseUrl}/incidents`);
    await page.locator('.empty, table').first().waitFor();
    unmarked.incidents = await look(page);

    await page.goto(`${t.baseUrl}/discovery`);
    await page.locator('form.discovery-run').waitFor();
    unmarked.discovery = await look(page);

    await page.goto(`${t.baseUrl}/connectors`);
    await page.locator('.page-header button.primary').waitFor();
    unmarked.connectors = await look(page);
    await inDialog('newConnector', () => page.locator('.page-header button.primary').click());

    await page.goto(`${t.baseUrl}/dependencies`);
    await page.locator('form.link-form').waitFor();
    unmarked.dependencies = await look(page);

    await page.goto(`${t.baseUrl}/admin/tls`);
    await page.getByTestId('tls-source').waitFor();
    unmarked.tls = await look(page);
    await page.locator('#tls-upload-title').waitFor();

    await page.goto(`${t.baseUrl}/admin/prometheus`);
    await page.locator('#prometheus-rw-title').waitFor();
    unmarked.prometheus = await look(page);

    expect(unmarked).toEqual({
      actions: [],
      deleteAction: [],
      actionForm: [],
      incidents: [],
      discovery: [],
      connectors: [],
      newConnector: [],
      dependencies: [],
      tls: [],
      prometheus: [],
    });
  }, 120_000);

  it('shows the pages in German with no missing message', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const pages: [string, string, 1 | 2][] = [
      ['actions', de['actions.title'], 1],
      ['incidents', de['nav.incidents'], 1],
      ['discovery', de['nav.discovery'], 1],
      ['connectors', de['nav.connectors'], 1],
      ['dependencies', de['dependencies.declared'], 2],
      ['admin/tls', de['tls.serverCertificate'], 2],
      ['admin/prometheus', de['prometheus.discovery'], 2],
    ];
    await page.goto(`${t.baseUrl}/actions?lang=de`);
    for (const [path, name, level] of pages) {
      await page.goto(`${t.baseUrl}/${path}`);
      await page.getByRole('heading', { name, level }).first().waitFor();
      await waitSettled(page);
      await expectLanguage(page, 'de');
    }
    await page.getByRole('heading', { name: de['prometheus.remoteWrite'], exact: true, level: 2 }).waitFor();
  }, 90_000);
});
