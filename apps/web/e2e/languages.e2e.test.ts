/**
 * The console in its five languages (decision 0090): the translated pages (sign-in, dashboard, assets, an
 * asset's overview, the search dialog, alerts and alert rules, the audit log, a page not found) render in each with
 * `<html lang>` set, a word of that language visible, no missing-key marker and nothing axe calls critical or serious; the language menu switches and is
 * remembered; the browser's own language is the default. Then once in the pseudo-locale: every visible text
 * of those pages (and every aria-label and placeholder) carries its markers, so a string left out of the
 * catalogues shows here. Data (asset names, addresses, usernames, times, code) is what the page marks
 * `translate="no"` or shows in <code>, <kbd> or <time>.
 */
import type { Alert } from '@svc/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityProblems } from './axe.js';
import { connectFakeAgent, createManualAsset, hourOfSamples, type EnrolledFake } from './fleet.js';
import { useConsole } from './harness.js';
import {
  catalogues,
  de,
  en,
  expectLanguage,
  fr,
  unmarkedTexts,
  waitSettled,
  zhCN,
} from './languages-check.js';

// Alert rules evaluated every second, so the alert the alerts page shows fires within the setup.
const h = useConsole({ env: { SVC_ALERT_INTERVAL_S: '1' } });

const agentName = 'i18n-node-01';
const manualName = 'i18n-manual-02';
const goneName = 'i18n-gone-03';
let fake: EnrolledFake;
let manualId = '';
let alertId = '';

beforeAll(async () => {
  fake = await connectFakeAgent(h(), agentName, {});
  fake.agent.metrics(hourOfSamples());
  manualId = (await createManualAsset(h(), manualName)).id;
  // An agent that leaves, watched by an offline rule: one firing alert for the alerts page.
  const gone = await connectFakeAgent(h(), goneName, {});
  await h().api('POST', '/api/v2/alerts/rules', {
    name: 'i18n gone',
    kind: 'offline',
    severity: 'critical',
    duration_minutes: 0,
    asset_ids: [gone.assetId],
  });
  gone.agent.close();
  for (let i = 0; i < 100 && alertId === ''; i++) {
    const alerts = (await h().api('GET', '/api/v2/alerts?status=active')).json.data as Alert[];
    alertId = alerts[0]?.id ?? '';
    if (alertId === '') await new Promise((resolve) => setTimeout(resolve, 200));
  }
  expect(alertId).not.toBe('');
}, 60_000);

afterAll(() => {
  fake.agent.close();
});

describe('the console in five languages', () => {
  it.each(catalogues)(
    'renders sign-in, dashboard, assets, an asset, search, alerts, audit and not-found in %s',
    async (lang, messages) => {
      const t = h();
      // The sign-in page, signed out, in a context of its own.
      const guest = await t.browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US' });
      const signInPage = await guest.newPage();
      await signInPage.goto(`${t.baseUrl}/?lang=${lang}`);
      await signInPage.getByRole('heading', { name: messages['signIn.title'] }).waitFor();
      await signInPage.getByLabel(messages['signIn.username']).waitFor();
      await expectLanguage(signInPage, lang);
      const problems = await accessibilityProblems(signInPage, `sign-in (${lang})`);
      await guest.close();

      await t.signIn('owner');
      const { page } = t;
      await page.goto(`${t.baseUrl}/dashboard?lang=${lang}`);
      await page.getByRole('heading', { level: 1, name: messages['dashboard.title'] }).waitFor();
      await page.getByRole('heading', { name: messages['dashboard.busiest'] }).waitFor();
      await page.getByRole('link', { name: agentName }).first().waitFor();
      await page.getByRole('button', { name: messages['shell.signOut'] }).waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `dashboard (${lang})`)));
      if (lang === 'de') await t.screenshot('dashboard-de');

      await page
        .getByRole('navigation')
        .getByRole('link', { name: messages['nav.assets'], exact: true })
        .click();
      await page.getByRole('heading', { level: 1, name: messages['assets.title'] }).waitFor();
      await page.getByRole('link', { name: manualName }).waitFor();
      await page.getByRole('columnheader', { name: /./ }).first().waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `assets (${lang})`)));
      await page.getByRole('button', { name: messages['assets.addDevice'] }).click();
      await page.getByRole('dialog', { name: messages['assetForm.addTitle'] }).waitFor();
      await page.getByLabel(messages['assetForm.ipAddresses']).waitFor();
      await expectLanguage(page, lang);
      await page.keyboard.press('Escape');

      await page.getByRole('link', { name: manualName }).click();
      await page.getByRole('heading', { level: 1, name: manualName }).waitFor();
      const sections = page.getByRole('navigation', { name: messages['assetPage.sections'] });
      await sections.getByRole('link', { name: messages['assetTab.overview'], exact: true }).waitFor();
      await page.getByRole('heading', { name: messages['power.title'] }).waitFor();
      await page.getByRole('heading', { name: messages['blast.title'] }).waitFor();
      await page.getByText(messages['blast.none']).waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `asset page (${lang})`)));

      await page.getByRole('button', { name: messages['shell.search'] }).click();
      const dialog = page.getByRole('dialog', { name: messages['search.title'] });
      await dialog.getByRole('combobox').fill('i18n-node');
      await dialog.getByRole('option', { name: new RegExp(agentName) }).waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `search (${lang})`)));
      await page.keyboard.press('Escape');

      await page.goto(`${t.baseUrl}/alerts`);
      await page.getByRole('heading', { level: 1, name: messages['alerts.title'] }).waitFor();
      const alertRow = page.locator(`tr[data-alert-id="${alertId}"]`);
      await alertRow.getByText('i18n gone').waitFor();
      await page.getByRole('columnheader', { name: messages['common.actions'] }).waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `alerts (${lang})`)));
      await alertRow.getByRole('button', { name: messages['alerts.silence'] }).click();
      await page.getByRole('dialog').getByLabel(messages['silence.for']).waitFor();
      await expectLanguage(page, lang);
      await page.keyboard.press('Escape');
      await page.getByRole('link', { name: messages['alerts.rules'], exact: true }).click();
      await page.getByRole('heading', { level: 1, name: messages['rules.title'] }).waitFor();
      await page.getByRole('table', { name: messages['rules.title'] }).getByText('i18n gone').waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `alert rules (${lang})`)));
      await page.getByRole('button', { name: messages['rules.new'] }).click();
      await page.getByRole('dialog', { name: messages['ruleForm.newTitle'] }).waitFor();
      await page.getByLabel(messages['ruleForm.duration']).waitFor();
      await expectLanguage(page, lang);
      await page.keyboard.press('Escape');

      await page.goto(`${t.baseUrl}/admin/audit`);
      await page.getByRole('heading', { level: 1, name: messages['audit.title'] }).waitFor();
      await page.getByRole('columnheader', { name: messages['audit.actor'] }).waitFor();
      await page.getByRole('button', { name: messages['audit.apply'] }).waitFor();
      await expectLanguage(page, lang);
      problems.push(...(await accessibilityProblems(page, `audit (${lang})`)));

      await page.goto(`${t.baseUrl}/no-such-page`);
      await page.getByRole('heading', { name: messages['notFound.title'] }).waitFor();
      await expectLanguage(page, lang);
      expect(problems).toEqual([]);
      expect(t.cspViolations).toEqual([]);
    },
    120_000,
  );

  it('takes the browser’s language first, then keeps the one chosen in the menu', async () => {
    const t = h();
    const german = await t.browser.newContext({ ignoreHTTPSErrors: true, locale: 'de-DE' });
    const page = await german.newPage();
    await page.goto(`${t.baseUrl}/`);
    await page.getByRole('heading', { name: de['signIn.title'] }).waitFor();
    await expectLanguage(page, 'de');

    await page.getByLabel(de['language.label']).selectOption('fr');
    await page.getByRole('heading', { name: fr['signIn.title'] }).waitFor();
    await expectLanguage(page, 'fr');
    await page.reload();
    await page.getByRole('heading', { name: fr['signIn.title'] }).waitFor();
    await german.close();

    // Signed in, from the header.
    await t.signIn('owner');
    await t.page.getByLabel(en['language.label']).selectOption('zh-CN');
    await t.page.getByRole('heading', { level: 1, name: zhCN['dashboard.title'] }).waitFor();
    await t.page.getByRole('link', { name: zhCN['nav.assets'], exact: true }).waitFor();
    await expectLanguage(t.page, 'zh-CN');
    await t.page.reload();
    await t.page.getByRole('button', { name: zhCN['shell.signOut'] }).waitFor();
  }, 60_000);
});

describe('the pseudo-locale', () => {
  it('marks every visible text of the translated pages', async () => {
    const t = h();
    const guest = await t.browser.newContext({ ignoreHTTPSErrors: true, locale: 'en-US' });
    const signInPage = await guest.newPage();
    await signInPage.goto(`${t.baseUrl}/?lang=pseudo`);
    await signInPage.locator('form').waitFor();
    await signInPage.locator('details.first-run summary').click();
    expect(await signInPage.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    const unmarked: Record<string, string[]> = { signIn: await signInPage.evaluate<string[]>(unmarkedTexts) };
    await guest.close();

    await t.signIn('owner');
    const { page } = t;
    await page.goto(`${t.baseUrl}/dashboard?lang=pseudo`);
    await page.getByRole('link', { name: agentName }).first().waitFor();
    await page.getByTestId('busiest-row').first().waitFor();
    await waitSettled(page);
    unmarked.dashboard = await page.evaluate<string[]>(unmarkedTexts);

    await page.goto(`${t.baseUrl}/assets`);
    await page.getByRole('link', { name: manualName }).waitFor();
    await waitSettled(page);
    unmarked.assets = await page.evaluate<string[]>(unmarkedTexts);
    await page.locator('.page-header button.primary').click();
    await page.getByRole('dialog').waitFor();
    unmarked.assetForm = await page.evaluate<string[]>(unmarkedTexts);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/assets/${manualId}`);
    await page.getByRole('heading', { level: 1, name: manualName }).waitFor();
    await page.locator('.blast-radius-count').waitFor();
    await waitSettled(page);
    unmarked.assetPage = await page.evaluate<string[]>(unmarkedTexts);

    await page.keyboard.press('Control+k');
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('combobox').fill('i18n');
    await dialog.getByRole('option').first().waitFor();
    unmarked.search = await page.evaluate<string[]>(unmarkedTexts);
    await dialog.getByRole('combobox').fill('nothing-like-this');
    await dialog.locator('p.muted').first().waitFor();
    unmarked.searchEmpty = await page.evaluate<string[]>(unmarkedTexts);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/alerts`);
    const alertRow = page.locator(`tr[data-alert-id="${alertId}"]`);
    await alertRow.waitFor();
    await waitSettled(page);
    unmarked.alerts = await page.evaluate<string[]>(unmarkedTexts);
    await alertRow.locator('.row-actions button').last().click();
    await page.getByRole('dialog').locator('select').waitFor();
    unmarked.silence = await page.evaluate<string[]>(unmarkedTexts);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/alerts/rules`);
    await page.locator('.data-table tbody tr').first().waitFor();
    await waitSettled(page);
    unmarked.rules = await page.evaluate<string[]>(unmarkedTexts);
    await page.locator('.page-header button.primary').click();
    const ruleForm = page.getByRole('dialog');
    await ruleForm.locator('input[role="combobox"]').click();
    await ruleForm.locator('.picker-options [role="option"]').first().waitFor();
    unmarked.ruleForm = await page.evaluate<string[]>(unmarkedTexts);
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/admin/audit`);
    await page.locator('.audit-table tbody tr').first().waitFor();
    await waitSettled(page);
    unmarked.audit = await page.evaluate<string[]>(unmarkedTexts);

    await page.goto(`${t.baseUrl}/no-such-page`);
    await page.locator('main h1').waitFor();
    unmarked.notFound = await page.evaluate<string[]>(unmarkedTexts);

    // The check itself: a string written into the page, not taken from a catalogue, is found.
    await page.evaluate(`(() => {
      const p = document.createElement('p');
      p.textContent = 'Not in a catalogue';
      p.setAttribute('aria-label', 'Nor this');
      document.querySelector('main').append(p);
    })()`);
    expect(await page.evaluate<string[]>(unmarkedTexts)).toEqual([
      'text: Not in a catalogue',
      'aria-label: Nor this',
    ]);

    expect(unmarked).toEqual({
      signIn: [],
      dashboard: [],
      assets: [],
      assetForm: [],
      assetPage: [],
      search: [],
      searchEmpty: [],
      alerts: [],
      silence: [],
      rules: [],
      ruleForm: [],
      audit: [],
      notFound: [],
    });
  }, 90_000);
});
