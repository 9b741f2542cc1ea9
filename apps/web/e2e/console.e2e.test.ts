/**
 * The console's pages in chromium against a real hub with its real local agent: the dashboard's counts are
 * the API's, the assets list adds, edits, filters, searches and deletes (with confirmation), the asset page
 * shows the overview, search opens from the keyboard, and a viewer sees no control that changes anything
 * while the hub refuses a mutation forced from the viewer's page.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Locator } from 'playwright-core';
import { accessibilityProblems } from './axe.js';
import { openNav, useConsole } from './harness.js';

const h = useConsole({ localAgent: true });

interface AssetData {
  id: string;
  name: string;
  status: string;
}

async function waitForLocalAgent(): Promise<AssetData> {
  const t = h();
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await t.api('GET', '/api/v2/assets?status=online');
    const online = (res.json.data as AssetData[] | undefined) ?? [];
    if (online[0]) return online[0];
    if (Date.now() > deadline) throw new Error(`the local agent never came online\n${t.hubOutput()}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('console pages', () => {
  beforeAll(async () => {
    const made = await h().api('POST', '/api/v2/assets', { name: 'manual-printer', platform: 'other' });
    expect(made.status).toBe(201);
  });

  it('shows on the dashboard the counts the API gives', async () => {
    const t = h();
    const local = await waitForLocalAgent();
    await t.signIn('owner');
    const aggregate = (await t.api('GET', '/status/aggregate')).json.data as {
      assets: { total: number; online: number; offline: number };
    };

    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    const count = (name: string) => t.page.getByTestId(`count-${name}`).textContent();
    expect(await count('assets')).toBe(String(aggregate.assets.total));
    expect(await count('online')).toBe(String(aggregate.assets.online));
    expect(await count('offline')).toBe(String(aggregate.assets.offline));
    expect(aggregate.assets.online).toBe(1);
    await t.page.getByRole('link', { name: local.name }).first().waitFor();
    await t.page.getByRole('heading', { name: 'Recent activity' }).waitFor();
    await t.screenshot('dashboard');
    expect(t.cspViolations).toEqual([]);
  });

  it('adds a device (showing the hub refusal per field), edits it, filters, searches and deletes it', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('link', { name: 'Assets', exact: true }).first().click();
    await t.page.getByRole('heading', { name: 'Assets' }).waitFor();
    await t.page.getByText('manual-printer').waitFor();
    await t.screenshot('assets');

    await t.page.getByRole('button', { name: 'Add device' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Add a device' });
    await dialog.getByLabel('Name', { exact: true }).fill('nas-backup');
    await dialog.getByLabel('IP addresses (comma separated)').fill('10.0.0.300');
    await dialog.getByRole('button', { name: 'Add device' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').textContent()).toContain('400 validation');
    await t.screenshot('asset-add');
    await dialog.getByLabel('IP addresses (comma separated)').fill('10.0.0.30');
    await dialog.getByLabel('Tags (comma separated)').fill('storage, backup');
    await dialog.getByRole('button', { name: 'Add device' }).click();
    await t.page.getByRole('rowheader', { name: 'nas-backup' }).waitFor();

    const listed = (await t.api('GET', '/api/v2/assets?q=nas-backup')).json.data as AssetData[];
    expect(listed).toHaveLength(1);

    await t.page.getByRole('button', { name: 'Edit nas-backup' }).click();
    const edit = t.page.getByRole('dialog', { name: 'Edit nas-backup' });
    await edit.getByLabel('Name', { exact: true }).fill('nas-archive');
    await edit.getByRole('button', { name: 'Save' }).click();
    await t.page.getByRole('rowheader', { name: 'nas-archive' }).waitFor();
    const renamed = (await t.api('GET', `/api/v2/assets/${listed[0]?.id ?? ''}`)).json.data as AssetData;
    expect(renamed.name).toBe('nas-archive');

    // Filters: status online leaves the local agent only; search finds by address.
    await t.page.getByRole('search').getByLabel('Status', { exact: true }).selectOption('online');
    await t.page.waitForURL(/status=online/);
    await t.page.getByRole('rowheader', { name: 'nas-archive' }).waitFor({ state: 'detached' });
    expect(await t.page.locator('tbody tr[data-asset-id]').count()).toBe(1);
    await t.page.getByRole('search').getByLabel('Status', { exact: true }).selectOption('');
    await t.page.getByLabel('Search', { exact: true }).fill('10.0.0.30');
    await t.page.getByLabel('Search', { exact: true }).press('Enter');
    await t.page.waitForURL(/q=10.0.0.30/);
    await t.page.getByText('1 asset', { exact: true }).waitFor();

    await t.page.getByRole('button', { name: 'Delete nas-archive' }).click();
    const confirm = t.page.getByRole('dialog', { name: 'Delete nas-archive?' });
    await confirm.waitFor();
    await t.screenshot('asset-delete');
    await confirm.getByRole('button', { name: 'Delete asset' }).click();
    await t.page.getByText('No asset matches these filters').waitFor();
    const gone = await t.api('GET', `/api/v2/assets/${listed[0]?.id ?? ''}`);
    expect(gone.status).toBe(404);
    expect(t.cspViolations).toEqual([]);
  });

  it('opens an asset page from the list, and search from the keyboard', async () => {
    const t = h();
    const local = await waitForLocalAgent();
    await t.signIn('owner');
    await t.page.keyboard.press('Control+k');
    const search = t.page.getByRole('dialog', { name: 'Search assets and groups' });
    await search.getByRole('combobox').fill(local.name.slice(0, 4));
    await search.getByRole('option').first().waitFor();
    await t.screenshot('search');
    await search.getByRole('combobox').press('Enter');
    await t.page.getByRole('heading', { name: local.name }).waitFor();
    expect(t.page.url()).toContain(`/assets/${local.id}`);
    await t.page.getByText('connected', { exact: false }).first().waitFor();
    await t.screenshot('asset');
  });

  it('folds the navigation behind a menu at phone width', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.setViewportSize({ width: 390, height: 800 });
    const menu = t.page.getByRole('button', { name: 'Menu' });
    await menu.waitFor();
    expect(await t.page.getByRole('link', { name: 'Assets', exact: true }).first().isVisible()).toBe(false);
    await menu.click();
    expect(await t.page.getByRole('link', { name: 'Assets', exact: true }).first().isVisible()).toBe(true);
    await t.screenshot('dashboard-phone');
  });

  // Every entry at two widths: about 40 page loads, 20 s on a loaded 2-core CI machine, and an axe run per
  // page per theme (80, about a second each on that machine; 105 s in all with eight test runs beside it).
  it(
    'reaches every navigation entry, marks its section, and keeps the user menu in view at 1280 and 390 px',
    { timeout: 180_000 },
    async () => {
      const t = h();
      await t.signIn('owner');
      const nav = t.page.getByRole('navigation', { name: 'Main', includeHidden: true });
      const links = await nav.getByRole('link', { includeHidden: true }).all();
      const entries: [string, string][] = [];
      for (const link of links)
        entries.push([(await link.textContent()) ?? '', (await link.getAttribute('href')) ?? '']);
      expect(entries.map(([label]) => label)).toEqual(
        expect.arrayContaining(['Dashboard', 'Assets', 'Run', 'Alerts', 'Webhooks', 'Admin']),
      );
      const sections = await nav.getByRole('heading').allTextContents();
      expect(sections.map((s) => s.replace(' (current section)', ''))).toEqual(
        expect.arrayContaining(['Fleet', 'Automation', 'Settings']),
      );

      const inView = async (target: Locator, name: string) => {
        expect(await target.isVisible(), name).toBe(true);
        const box = await target.boundingBox();
        const size = t.page.viewportSize();
        expect(box, name).not.toBeNull();
        if (!box || !size) return;
        expect(box.x, name).toBeGreaterThanOrEqual(0);
        expect(box.y, name).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width, name).toBeLessThanOrEqual(size.width);
        expect(box.y + box.height, name).toBeLessThanOrEqual(size.height);
      };

      // Every page's axe findings, light and dark, asserted at the end so one run lists them all.
      const problems: string[] = [];
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await t.page.setViewportSize(viewport);
        for (const [label, href] of entries) {
          await openNav(t.page, label);
          // A page may go on to its first tab (Admin to /admin/keys).
          await t.page.waitForURL((url) => url.pathname.startsWith(href));
          const at = `${label} at ${String(viewport.width)} px`;
          // The link is the current page, and its section (only it) is marked.
          const active = nav.locator('a[aria-current="page"]', { hasText: label });
          await active.waitFor({ state: 'attached' });
          const marked = nav.getByRole('heading', { name: /\(current section\)/, includeHidden: true });
          expect(await marked.count(), at).toBe(1);
          const section = nav.getByRole('region', { includeHidden: true }).filter({
            has: t.page.locator('a[aria-current="page"]', { hasText: label }),
          });
          expect(await section.getByRole('heading', { includeHidden: true }).textContent(), at).toMatch(
            /\(current section\)$/,
          );
          problems.push(...(await accessibilityProblems(t.page, at)));
        }
        const at = `at ${String(viewport.width)} px`;
        await inView(t.page.getByTitle(/^Signed in as owner/), `the user ${at}`);
        await inView(t.page.getByRole('button', { name: 'Sign out' }), `sign-out ${at}`);
        await inView(t.page.getByRole('button', { name: /^Switch to the/ }), `theme ${at}`);
      }

      // At phone width the menu closes on Escape, focus back on its button.
      const menu = t.page.getByRole('button', { name: 'Menu' });
      await menu.click();
      expect(await menu.getAttribute('aria-expanded')).toBe('true');
      await t.page.keyboard.press('Escape');
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav.isVisible()).toBe(false);
      expect(await t.page.evaluate<string>('document.activeElement?.getAttribute("aria-label") ?? ""')).toBe(
        'Menu',
      );
      expect(t.cspViolations).toEqual([]);
      expect(problems).toEqual([]);
    },
  );

  // The pages the navigation does not list (Admin's tabs, the account, an asset, alert rules, a missing
  // page), with rows in them, through axe at both widths in both themes: 44 runs, 70 s on a loaded machine.
  it(
    'passes axe on the pages outside the navigation, with data in them, at 1280 and 390 px',
    { timeout: 150_000 },
    async () => {
      const t = h();
      const local = await waitForLocalAgent();
      // A user with row actions (the owner has none), and enrollment tokens in each state's chip.
      const user = await t.api('POST', '/api/auth/users', {
        username: 'axe-operator',
        password: 'axe-operator-password-long',
        role: 'operator',
      });
      expect(user.status, user.text).toBe(201);
      const token = async (name: string) => {
        const made = await t.api('POST', '/api/v2/enrollment-tokens', { name });
        expect(made.status, made.text).toBe(201);
        return made.json.data as { id: string; token: string };
      };
      await token('axe active');
      const revoked = await token('axe revoked');
      expect((await t.api('DELETE', `/api/v2/enrollment-tokens/${revoked.id}`)).status).toBeLessThan(300);
      const usedUp = await token('axe used up');
      const enrolled = await t.api('POST', '/api/v1/enroll', {
        token: usedUp.token,
        hostname: 'axe-enrolled',
        platform: 'linux',
        agent_version: 'fake-1.0.0',
      });
      expect(enrolled.status, enrolled.text).toBe(201);

      await t.signIn('owner');
      const paths = [
        ...['users', 'enrollment', 'tls', 'tailscale', 'settings', 'audit', 'status'].map(
          (tab) => `/admin/${tab}`,
        ),
        '/account/security',
        `/assets/${local.id}`,
        '/alerts/rules',
        '/no-such-page',
      ];
      const problems: string[] = [];
      for (const viewport of [
        { width: 1280, height: 800 },
        { width: 390, height: 844 },
      ]) {
        await t.page.setViewportSize(viewport);
        for (const path of paths) {
          // In the page, as its links do (no reload: axe stays injected).
          await t.page.evaluate(
            `history.pushState(null, '', ${JSON.stringify(path)}); dispatchEvent(new PopStateEvent('popstate'))`,
          );
          await t.page.waitForURL((url) => url.pathname === path);
          await t.page.getByRole('heading', { level: 1 }).first().waitFor();
          problems.push(...(await accessibilityProblems(t.page, `${path} at ${String(viewport.width)} px`)));
        }
      }
      expect(problems).toEqual([]);
    },
  );

  it('is usable from the keyboard: the skip link first, then the page', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.getByRole('heading', { name: 'Dashboard' }).waitFor();
    await t.page.keyboard.press('Tab');
    const focused = () => t.page.evaluate<string>('document.activeElement?.textContent?.trim() ?? ""');
    expect(await focused()).toBe('Skip to content');
    await t.page.keyboard.press('Enter');
    expect(t.page.url()).toContain('#main');
    expect(await t.page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('main');
  });

  it('keeps the theme the user picks over the system one, across a reload', async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.emulateMedia({ colorScheme: 'light' });
    const theme = () => t.page.evaluate<string>('document.documentElement.dataset.theme ?? ""');
    await t.page.getByRole('button', { name: 'Switch to the dark theme' }).click();
    expect(await theme()).toBe('dark');
    await t.page.reload();
    await t.page.getByRole('button', { name: 'Switch to the light theme' }).waitFor();
    expect(await theme()).toBe('dark');
    await t.page.getByRole('button', { name: 'Switch to the light theme' }).click();
    expect(await theme()).toBe('light');
  });

  it("shows the hub's error for an asset that does not exist, as the hub words it", async () => {
    const t = h();
    await t.signIn('owner');
    await t.page.goto(`${t.baseUrl}/assets/ast_01jd7k2m3n4p5q6r7s8t9v0wxy`);
    const alert = t.page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('404 not_found');
    expect(await alert.textContent()).toContain('ast_01jd7k2m3n4p5q6r7s8t9v0wxy');
  });

  it('shows a viewer no mutation control, and the hub refuses one forced from its page', async () => {
    const t = h();
    await t.signIn('viewer');
    await t.page.getByRole('link', { name: 'Assets', exact: true }).first().click();
    await t.page.getByRole('heading', { name: 'Assets' }).waitFor();
    await t.page.getByText('manual-printer').waitFor();

    expect(await t.page.getByRole('button', { name: 'Add device' }).count()).toBe(0);
    expect(await t.page.getByRole('button', { name: /^(Edit|Delete) / }).count()).toBe(0);
    expect(await t.page.getByRole('heading', { name: 'Recent activity' }).count()).toBe(0);
    await t.screenshot('assets-viewer');

    const forced = await t.page.evaluate(async () => {
      const response = await fetch('/api/v2/assets', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'forced-by-viewer' }),
      });
      return { status: response.status, body: (await response.json()) as { error?: string } };
    });
    expect(forced.status).toBe(403);
    expect(forced.body.error).toBe('read_only_role');
    const made = (await t.api('GET', '/api/v2/assets?q=forced-by-viewer')).json.data as AssetData[];
    expect(made).toEqual([]);
  });
});
