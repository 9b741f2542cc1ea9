/**
 * Terminal comforts (issue 34 point 5, decision 0091) in chromium on the hub's real local agent: a snippet
 * made with the form, inserted without running and then run; a bookmark opening a second tab in its
 * directory (`pwd` shows it, quotes and spaces included); switching tabs by mouse and keyboard, each keeping
 * its screen; copy (Ctrl+Shift+C, copy on select) and paste (Ctrl+Shift+V, the browser's paste event) with
 * clipboard permissions granted; and axe on the page.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Locator, Page } from 'playwright-core';
import { accessibilityProblems } from './axe.js';
import { openLocalTerminal } from './fleet.js';
import { useConsole } from './harness.js';

const h = useConsole({ localAgent: true });
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-bookmark-'));
const directory = path.join(base, "it's a dir");
fs.mkdirSync(directory);

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true });
});

/** The shown tab's screen. */
const screen = (page: Page) => page.locator('[role=tabpanel]:not([hidden]) .xterm-rows');
const screenText = async (page: Page) => (await screen(page).textContent()) ?? '';

async function typeLine(page: Page, line: string): Promise<void> {
  await page.locator('[role=tabpanel]:not([hidden]) .terminal-box').click();
  await page.keyboard.type(line);
  await page.keyboard.press('Enter');
}

/** A triple click on a screen row selects the line (xterm's own layer over the rows takes the mouse). */
async function tripleClick(page: Page, row: Locator): Promise<void> {
  const box = await row.boundingBox();
  if (!box) throw new Error('the row is not on the screen');
  await page.mouse.click(box.x + 4, box.y + box.height / 2, { clickCount: 3 });
}

const clipboardText = (page: Page) => page.evaluate<string>('navigator.clipboard.readText()');

describe('terminal comforts', () => {
  it(
    'inserts and runs snippets, opens a bookmark in its directory as a second tab, copies and pastes',
    { timeout: 180_000 },
    async () => {
      const t = h();
      await openLocalTerminal(t);
      // After the sign-in, which opens a fresh browser context.
      await t.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
      const { page } = t;
      const status = page.getByRole('status');
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Live');
      const firstUrl = page.url();

      // A snippet, made with the form; Insert types it without running it.
      await page.getByRole('button', { name: 'New snippet' }).click();
      const form = page.getByRole('dialog', { name: 'New snippet' });
      await form.getByLabel('Name').fill('greet');
      await form.getByLabel('Text').fill('echo snip-$((20+1))\n');
      await form.getByRole('button', { name: 'Create snippet' }).click();
      await page.getByRole('button', { name: 'Insert greet' }).click();
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('echo snip-$((20+1))');
      // Not run: give the shell time to have run it if it were going to.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      expect(await screenText(page)).not.toContain('snip-21');
      await page.keyboard.press('Enter');
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('snip-21');
      await page.getByRole('button', { name: /^Run greet/ }).click();
      await expect
        .poll(async () => (await screenText(page)).split('snip-21').length - 1, { timeout: 10_000 })
        .toBe(2);

      // A bookmark of this asset and a directory with a quote and a space; opening it is a second tab there.
      await page.getByRole('button', { name: 'New bookmark' }).click();
      const bookmarkForm = page.getByRole('dialog', { name: 'New bookmark' });
      await bookmarkForm.getByLabel('Directory').fill(directory);
      await bookmarkForm.getByLabel('Name (optional)').fill('work dir');
      await bookmarkForm.getByRole('button', { name: 'Create bookmark' }).click();
      await page.getByRole('button', { name: 'Open work dir in a new tab' }).click();
      await page.waitForURL((url) => url.href !== firstUrl && /\/sessions\/rss_/.test(url.href));
      const secondUrl = page.url();
      await expect.poll(() => page.getByRole('tab').count()).toBe(2);
      await expect.poll(() => status.textContent(), { timeout: 20_000 }).toBe('Live');
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('cd -- ');
      await typeLine(page, 'pwd');
      await expect
        .poll(async () => (await screenText(page)).replace(/\s+/g, ' '), { timeout: 10_000 })
        .toContain(directory.replace(/\s+/g, ' '));
      expect(await screenText(page)).not.toContain('snip-21');

      // The tabs: by mouse, then by keyboard; each keeps its own screen.
      const tabs = page.getByRole('tab');
      await expect.poll(() => tabs.nth(1).getAttribute('aria-selected')).toBe('true');
      await expect.poll(() => tabs.nth(1).textContent()).toContain('Live');
      await tabs.nth(0).click();
      await page.waitForURL(firstUrl);
      await expect.poll(() => screenText(page)).toContain('snip-21');
      await tabs.nth(0).focus();
      await page.keyboard.press('ArrowRight');
      await page.waitForURL(secondUrl);
      await expect.poll(() => tabs.nth(1).getAttribute('aria-selected')).toBe('true');
      await expect
        .poll(() => page.evaluate<string | null>("document.activeElement?.getAttribute('role') ?? null"))
        .toBe('tab');

      // Copy: a line selected with a triple click, then Ctrl+Shift+C.
      await typeLine(page, 'echo copy-me-$((40+2))');
      const copied = screen(page)
        .locator('div', { hasText: /^copy-me-42\s*$/ })
        .first();
      await copied.waitFor({ timeout: 10_000 });
      await tripleClick(page, copied);
      await page.keyboard.press('Control+Shift+C');
      await expect.poll(() => clipboardText(page)).toBe('copy-me-42');

      // Copy on select: a selection alone fills the clipboard.
      await page.getByRole('checkbox', { name: 'Copy on select' }).check();
      await typeLine(page, 'echo select-me-$((50+1))');
      const selected = screen(page)
        .locator('div', { hasText: /^select-me-51\s*$/ })
        .first();
      await selected.waitFor({ timeout: 10_000 });
      await tripleClick(page, selected);
      await expect.poll(() => clipboardText(page)).toBe('select-me-51');

      // Paste: Ctrl+Shift+V reads the clipboard into the terminal.
      await page.evaluate("navigator.clipboard.writeText('echo pasted-$((60+6))')");
      await page.locator('[role=tabpanel]:not([hidden]) .terminal-box').click();
      await page.keyboard.press('Control+Shift+V');
      // The clipboard is read asynchronously: Enter once the text is on the command line.
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('echo pasted-$((60+6))');
      await page.keyboard.press('Enter');
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('pasted-66');
      // The browser's paste event (its context menu, the Edit menu) goes in too.
      await page.evaluate(`(() => {
        const data = new DataTransfer();
        data.setData('text/plain', 'echo event-$((70+7))');
        const target = document.querySelector('[role=tabpanel]:not([hidden]) textarea');
        target.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      })()`);
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('echo event-$((70+7))');
      await page.keyboard.press('Enter');
      await expect.poll(() => screenText(page), { timeout: 10_000 }).toContain('event-77');

      expect(await accessibilityProblems(page, 'terminal page with two tabs')).toEqual([]);
      await t.screenshot('terminal-tabs');

      // Closing a tab ends its shell and shows the other one.
      await page.getByRole('button', { name: 'Close tab' }).click();
      await page.waitForURL(firstUrl);
      await expect.poll(() => page.getByRole('tab').count()).toBe(1);
      expect(t.cspViolations).toEqual([]);
    },
  );
});
