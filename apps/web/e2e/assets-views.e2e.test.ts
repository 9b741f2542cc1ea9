/**
 * The assets list's views (decision 0096) in chromium against a real hub: compact rows, hidden columns and
 * column widths kept in this browser across a reload; saved filters kept in the hub, applied in one click,
 * renamed and deleted, and seen by no other user; axe finds nothing critical or serious with the controls.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import type { Page } from 'playwright-core';
import { accessibilityProblems } from './axe.js';
import { useConsole } from './harness.js';

const h = useConsole();

const longName = `rack-7-${'storage-array-primary-'.repeat(4)}end`;

async function openAssets(page: Page, baseUrl: string, query = ''): Promise<void> {
  await page.goto(`${baseUrl}/assets${query}`);
  await page.getByRole('heading', { name: 'Assets' }).waitFor();
  await page.getByRole('rowheader').first().waitFor();
}

async function rowHeight(page: Page): Promise<number> {
  const box = await page.locator('.assets-table tbody tr').first().boundingBox();
  if (!box) throw new Error('no row drawn');
  return box.height;
}

async function headerWidth(page: Page, name: string): Promise<number> {
  const box = await page.getByRole('columnheader', { name, exact: true }).boundingBox();
  if (!box) throw new Error(`no ${name} header drawn`);
  return box.width;
}

/** The names of the rows shown, in order. */
async function rowNames(page: Page): Promise<string[]> {
  return page.getByRole('rowheader').locator('a').allTextContents();
}

describe('assets list views', () => {
  beforeAll(async () => {
    const t = h();
    for (const [name, tags] of [
      ['web-01', ['frontend']],
      ['web-02', ['frontend']],
      ['db-01', ['database']],
      [longName, []],
    ] as const) {
      const made = await t.api('POST', '/api/v2/assets', { name, platform: 'linux', tags });
      expect(made.status, made.text).toBe(201);
    }
  });

  it('switches to compact rows and keeps the choice after a reload', async () => {
    const t = h();
    await t.signIn('operator');
    await openAssets(t.page, t.baseUrl);
    const comfortable = await rowHeight(t.page);
    expect(comfortable).toBeGreaterThanOrEqual(38);

    await t.page.getByRole('radio', { name: 'Compact' }).check();
    await expect.poll(async () => rowHeight(t.page)).toBeLessThan(comfortable * 0.75);
    const compact = await rowHeight(t.page);
    expect(compact).toBeGreaterThanOrEqual(24);

    await t.page.reload();
    await t.page.getByRole('rowheader').first().waitFor();
    expect(await t.page.getByRole('radio', { name: 'Compact' }).isChecked()).toBe(true);
    expect(await rowHeight(t.page)).toBe(compact);
    await t.screenshot('assets-compact');
    expect(t.cspViolations).toEqual([]);
  });

  it('hides a column and resizes another by pointer and keyboard, both kept after a reload', async () => {
    const t = h();
    await openAssets(t.page, t.baseUrl);
    await t.page.locator('summary', { hasText: 'Columns' }).click();
    const nameBox = t.page.getByRole('checkbox', { name: 'Name' });
    expect(await nameBox.isDisabled()).toBe(true);
    await t.page.getByRole('checkbox', { name: 'Platform' }).uncheck();
    await expect.poll(async () => t.page.getByRole('columnheader', { name: 'Platform' }).count()).toBe(0);
    expect(await t.page.getByRole('cell', { name: 'Linux' }).count()).toBe(0);

    const before = await headerWidth(t.page, 'Status');
    const handle = t.page.getByRole('separator', { name: 'Resize the Status column' });
    const box = await handle.boundingBox();
    if (!box) throw new Error('no resize handle drawn');
    const y = box.y + box.height / 2;
    await t.page.mouse.move(box.x + box.width / 2, y);
    await t.page.mouse.down();
    await t.page.mouse.move(box.x + box.width / 2 + 30, y, { steps: 3 });
    await t.page.mouse.move(box.x + box.width / 2 + 60, y, { steps: 3 });
    await t.page.mouse.up();
    await expect.poll(async () => headerWidth(t.page, 'Status')).toBeCloseTo(before + 60, -1);
    await handle.focus();
    await t.page.keyboard.press('ArrowRight');
    await expect.poll(async () => headerWidth(t.page, 'Status')).toBeCloseTo(before + 70, -1);
    const chosen = await headerWidth(t.page, 'Status');
    // The cells follow their header: a row's status cell is as wide.
    const cell = await t.page.locator('.assets-table tbody tr .col-status').first().boundingBox();
    expect(cell?.width).toBeCloseTo(chosen, 0);
    // Never cut to nothing: Home goes to the least width, not below.
    await t.page.keyboard.press('Home');
    await expect.poll(async () => headerWidth(t.page, 'Status')).toBe(80);
    await t.page.keyboard.press('Shift+ArrowRight');
    await expect.poll(async () => headerWidth(t.page, 'Status')).toBe(120);

    await t.page.reload();
    await t.page.getByRole('rowheader').first().waitFor();
    expect(await t.page.getByRole('columnheader', { name: 'Platform' }).count()).toBe(0);
    expect(await headerWidth(t.page, 'Status')).toBe(120);
    // A long name keeps its whole text in the link's title.
    const long = t.page.getByRole('rowheader').locator('a', { hasText: 'rack-7-' });
    expect(await long.getAttribute('title')).toBe(longName);

    await t.page.locator('summary', { hasText: 'Columns' }).click();
    await t.page.getByRole('checkbox', { name: 'Platform' }).check();
    await t.page.getByRole('button', { name: 'Reset widths' }).click();
    await t.page.getByRole('columnheader', { name: 'Platform' }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });

  it('saves a filter, applies it in one click after a reload, renames and deletes it', async () => {
    const t = h();
    await openAssets(t.page, t.baseUrl);
    await t.page.getByLabel('Search', { exact: true }).fill('web');
    await expect.poll(async () => rowNames(t.page)).toEqual(['web-01', 'web-02']);
    await t.page.getByRole('button', { name: 'Save filter…' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Save the current filters' });
    await dialog.getByLabel('Name').fill('Web servers');
    await dialog.getByRole('button', { name: 'Save filter' }).click();
    const saved = t.page.getByRole('button', { name: 'Web servers', exact: true });
    await saved.waitFor();
    expect(await saved.getAttribute('aria-pressed')).toBe('true');

    // A second one of the same name is refused, and says why.
    await t.page.getByRole('button', { name: 'Save filter…' }).click();
    await dialog.getByLabel('Name').fill('Web servers');
    await dialog.getByRole('button', { name: 'Save filter' }).click();
    await dialog.getByRole('alert').waitFor();
    expect(await dialog.getByRole('alert').textContent()).toContain('already have a saved filter');
    await dialog.getByRole('button', { name: 'Cancel' }).click();

    await openAssets(t.page, t.baseUrl);
    expect(await rowNames(t.page)).toHaveLength(4);
    expect(await t.page.getByLabel('Search', { exact: true }).inputValue()).toBe('');
    await t.page.getByRole('button', { name: 'Web servers', exact: true }).click();
    await expect.poll(async () => rowNames(t.page)).toEqual(['web-01', 'web-02']);
    expect(await t.page.getByLabel('Search', { exact: true }).inputValue()).toBe('web');
    expect(new URL(t.page.url()).searchParams.get('q')).toBe('web');

    await t.page.locator('summary', { hasText: 'Manage' }).click();
    expect(await accessibilityProblems(t.page, 'assets list with its view controls')).toEqual([]);
    await t.page.getByRole('button', { name: 'Rename Web servers' }).click();
    const rename = t.page.getByRole('dialog', { name: 'Rename Web servers' });
    await rename.getByLabel('Name').fill('Frontends');
    await rename.getByRole('button', { name: 'Rename' }).click();
    await t.page.getByRole('button', { name: 'Frontends', exact: true }).waitFor();
    // The list under Manage stays open for the next change.
    await t.page.getByRole('button', { name: 'Delete Frontends' }).click();
    await t.page.getByRole('dialog').getByRole('button', { name: 'Delete filter' }).click();
    await t.page.getByText('None yet: set filters, then save them').waitFor();
    expect(t.cspViolations).toEqual([]);
  });

  it('keeps saved filters to their owner: another user does not see them', async () => {
    const t = h();
    await openAssets(t.page, t.baseUrl, '?q=db');
    await t.page.getByRole('button', { name: 'Save filter…' }).click();
    const dialog = t.page.getByRole('dialog', { name: 'Save the current filters' });
    await dialog.getByLabel('Name').fill('Databases');
    await dialog.getByRole('button', { name: 'Save filter' }).click();
    await t.page.getByRole('button', { name: 'Databases', exact: true }).waitFor();

    await t.signIn('viewer');
    await openAssets(t.page, t.baseUrl);
    await t.page.getByText('None yet: set filters, then save them').waitFor();
    expect(await t.page.getByRole('button', { name: 'Databases', exact: true }).count()).toBe(0);
    // A viewer keeps filters of their own.
    await t.page.getByRole('button', { name: 'Save filter…' }).click();
    const own = t.page.getByRole('dialog', { name: 'Save the current filters' });
    await own.getByLabel('Name').fill('Everything');
    await own.getByRole('button', { name: 'Save filter' }).click();
    await t.page.getByRole('button', { name: 'Everything', exact: true }).waitFor();
    expect(t.cspViolations).toEqual([]);
  });
});
