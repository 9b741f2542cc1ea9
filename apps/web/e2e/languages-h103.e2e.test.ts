/**
 * The terminals, desktops, API keys, users and account pages in the console's languages (decision 0090): once
 * in the pseudo-locale, every visible text of those pages and of their main dialogs carries its markers (a
 * string left out of the catalogues shows here); once in German, each shows its language, no missing key, and
 * a heading found by its German name. The Administration frame around keys and users is another area's: there
 * only the page itself is checked. The terminal's own screen (what xterm draws) is data.
 */
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { localAsset } from './fleet.js';
import { useConsole } from './harness.js';
import { de, expectLanguage, unmarkedTexts, waitSettled } from './languages-check.js';

const h = useConsole({ localAgent: true });

let assetId = '';
let sessionId = '';

beforeAll(async () => {
  const t = h();
  assetId = (await localAsset(t)).id;
  const session = await t.api('POST', `/api/v2/assets/${encodeURIComponent(assetId)}/sessions`, {
    kind: 'terminal',
    cols: 120,
    rows: 32,
  });
  expect(session.status).toBe(201);
  sessionId = (session.json.data as { id: string }).id;
  const answers = await Promise.all([
    t.api('POST', '/api/v2/terminal-snippets', {
      name: 'disk usage',
      text: 'df -h',
      description: 'every mount',
      scope: 'shared',
    }),
    t.api('POST', '/api/v2/keys', { name: 'i18n-bot', role: 'operator', scopes: ['assets:read'] }),
    t.api('POST', '/api/auth/users', {
      username: 'i18n-vic',
      password: 'vic-password-long-enough',
      role: 'viewer',
    }),
  ]);
  expect(answers.map((answer) => answer.status)).toEqual([201, 201, 201]);
}, 60_000);

/** The pseudo-locale's check on what `root` selects (the body, a page, a dialog). */
function unmarkedIn(page: Page, root: string): Promise<string[]> {
  return page.evaluate<string[]>(
    unmarkedTexts.replaceAll('document.body', `document.querySelector('${root}')`),
  );
}

const adminPage = '.admin > section.page';

describe('terminals, desktops, keys, users and account in other languages', () => {
  it('marks every visible text of those pages and dialogs in the pseudo-locale', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;
    const unmarked: Record<string, string[]> = {};

    await page.goto(`${t.baseUrl}/sessions?lang=pseudo`);
    await page.locator(`a[href="/sessions/${sessionId}"]`).waitFor();
    await waitSettled(page);
    expect(await page.evaluate<string>('document.documentElement.lang')).toBe('en-XA');
    unmarked.sessions = await unmarkedIn(page, 'body');

    await page.goto(`${t.baseUrl}/sessions/${sessionId}`);
    await page.locator('.terminal-page .chip.state-ok').waitFor({ timeout: 15_000 });
    await page.locator('.snippet-text').waitFor();
    await page.locator('#snippets-title + button').click();
    await page.getByRole('dialog').locator('textarea').waitFor();
    unmarked.snippetForm = await unmarkedIn(page, 'dialog[open]');
    await page.keyboard.press('Escape');
    // A bookmark is its user's own: made here, on the shown terminal's asset.
    await page.locator('#bookmarks-title + button').click();
    const bookmarkForm = page.getByRole('dialog');
    await bookmarkForm.locator('input[placeholder="/var/www"]').waitFor();
    unmarked.bookmarkForm = await unmarkedIn(page, 'dialog[open]');
    await bookmarkForm.locator('input[placeholder="/var/www"]').fill('/tmp');
    await bookmarkForm.locator('button.primary').click();
    await page.locator('.terminal-side-list code', { hasText: '/tmp' }).waitFor();
    await bookmarkForm.waitFor({ state: 'detached' });
    unmarked.terminal = await unmarkedIn(page, 'body');

    await page.goto(`${t.baseUrl}/desktop`);
    await page.locator('#desktops-title').waitFor();
    await waitSettled(page);
    unmarked.desktops = await unmarkedIn(page, 'body');

    await page.goto(`${t.baseUrl}/assets/${encodeURIComponent(assetId)}/desktop`);
    await page.locator('.desktop-tab form').waitFor();
    await waitSettled(page);
    unmarked.desktopTab = await unmarkedIn(page, 'body');

    await page.goto(`${t.baseUrl}/admin/keys`);
    await page.locator('.admin-table tbody th', { hasText: 'i18n-bot' }).waitFor();
    unmarked.keys = await unmarkedIn(page, adminPage);
    await page.locator('.page-header button.primary').click();
    await page.getByRole('dialog').locator('.scope-picker').waitFor();
    unmarked.keyForm = await unmarkedIn(page, 'dialog[open]');
    await page.keyboard.press('Escape');
    await page.locator('.admin-table tbody tr', { hasText: 'i18n-bot' }).locator('button.danger').click();
    await page.getByRole('dialog').locator('code').waitFor();
    unmarked.revoke = await unmarkedIn(page, 'dialog[open]');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/admin/users`);
    await page.getByTestId('role-i18n-vic').waitFor();
    unmarked.users = await unmarkedIn(page, adminPage);
    await page.locator('.page-header button.primary').click();
    await page.getByRole('dialog').locator('select').waitFor();
    unmarked.userForm = await unmarkedIn(page, 'dialog[open]');
    await page.keyboard.press('Escape');
    await page.locator('.admin-table tbody tr', { hasText: 'i18n-vic' }).locator('button.danger').click();
    await page.getByRole('dialog').locator('select').waitFor();
    unmarked.userDelete = await unmarkedIn(page, 'dialog[open]');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/account/security`);
    await page.locator('#two-factor-title ~ .stack-form button.primary').click();
    await page.getByTestId('totp-secret').waitFor();
    await page.locator('form[aria-label] input[type="password"]').first().waitFor();
    unmarked.account = await unmarkedIn(page, 'body');

    expect(unmarked).toEqual({
      sessions: [],
      terminal: [],
      snippetForm: [],
      bookmarkForm: [],
      desktops: [],
      desktopTab: [],
      keys: [],
      keyForm: [],
      revoke: [],
      users: [],
      userForm: [],
      userDelete: [],
      account: [],
    });
  }, 120_000);

  it('shows them in German, headings by their German names', async () => {
    const t = h();
    await t.signIn('owner');
    const { page } = t;

    await page.goto(`${t.baseUrl}/sessions?lang=de`);
    await page.getByRole('heading', { level: 1, name: de['sessions.title'] }).waitFor();
    await page.getByRole('table', { name: de['sessions.liveLabel'] }).waitFor();
    await expectLanguage(page, 'de');

    await page.getByRole('link', { name: de['sessions.attach'] }).first().click();
    await page.getByRole('heading', { level: 1, name: de['sessions.terminal'] }).waitFor();
    await page.getByRole('heading', { name: de['sessions.snippets'] }).waitFor();
    await page
      .getByRole('button', { name: de['sessions.insertNamed'].replace('{name}', 'disk usage') })
      .waitFor();
    await expectLanguage(page, 'de');
    await page.getByRole('button', { name: de['sessions.newBookmark'] }).click();
    await page
      .getByRole('dialog', { name: de['sessions.newBookmark'] })
      .getByLabel(de['sessions.directory'])
      .waitFor();
    await expectLanguage(page, 'de');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/desktop`);
    await page.getByRole('heading', { level: 1, name: de['sessions.desktops'] }).waitFor();
    await waitSettled(page);
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/assets/${encodeURIComponent(assetId)}/desktop`);
    await page.getByRole('button', { name: de['sessions.openDesktop'] }).waitFor();
    await expectLanguage(page, 'de');

    await page.goto(`${t.baseUrl}/admin/keys`);
    await page.getByRole('heading', { level: 1, name: de['keys.title'] }).waitFor();
    await page.getByRole('button', { name: de['keys.revokeNamed'].replace('{name}', 'i18n-bot') }).waitFor();
    await expectLanguage(page, 'de');
    await page.getByRole('button', { name: de['keys.create'] }).click();
    await page
      .getByRole('dialog', { name: de['keys.createTitle'] })
      .getByText(de['keys.allowedAssets'])
      .waitFor();
    await expectLanguage(page, 'de');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/admin/users`);
    await page.getByRole('heading', { level: 1, name: de['users.title'] }).waitFor();
    await page.getByRole('heading', { name: de['users.roles'] }).waitFor();
    await expectLanguage(page, 'de');
    await page.getByRole('button', { name: de['common.deleteNamed'].replace('{name}', 'i18n-vic') }).click();
    await page
      .getByRole('dialog', { name: `${de['common.deleteNamed'].replace('{name}', 'i18n-vic')}?` })
      .getByLabel(de['users.heir'])
      .waitFor();
    await expectLanguage(page, 'de');
    await page.keyboard.press('Escape');

    await page.goto(`${t.baseUrl}/account/security`);
    await page.getByRole('heading', { level: 1, name: de['account.title'] }).waitFor();
    await page.getByRole('form', { name: de['account.passwordForm'] }).waitFor();
    await page.getByRole('button', { name: de['account.setUp'] }).waitFor();
    await expectLanguage(page, 'de');
    expect(t.cspViolations).toEqual([]);
  }, 120_000);
});
