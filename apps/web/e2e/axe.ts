/**
 * Accessibility check for the browser tests: axe-core (WCAG 2 A and AA, and best practice) on the page as it
 * is, in the light and the dark theme, failing on any critical or serious finding with the rule, the element
 * and axe's summary. One run per theme: a full page takes a second or so on a loaded machine.
 *
 * axe's source goes in through playwright's evaluate (the debugger protocol), which the console's CSP does not
 * govern, so the page under test keeps its strict policy; it stays in the document across client-side
 * navigations and is injected again only after a load.
 */
import axe from 'axe-core';
import type { Page } from 'playwright-core';

type Theme = 'light' | 'dark';

interface Finding {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string; summary: string }[];
}

const runOptions = {
  runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
  // WCAG 2.5.3 (label in name): a control's accessible name contains its visible text. axe files the rule
  // as experimental, so it runs only when named; the checkers users run report it.
  rules: { 'label-content-name-mismatch': { enabled: true } },
  resultTypes: ['violations'],
};

/** In the page: only what a failure message needs comes back, not axe's whole report. */
const runInPage = `window.axe.run(document, ${JSON.stringify(runOptions)}).then((results) =>
  results.violations
    .filter((v) => v.impact === 'critical' || v.impact === 'serious')
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target.join(' '), summary: n.failureSummary ?? '' })),
    })),
)`;

/** Waits for the page's data (no loading indicator left), as a user would before reading it. */
async function settled(page: Page): Promise<void> {
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached', timeout: 5_000 })
    .catch(() => undefined);
}

async function useTheme(page: Page, theme: Theme): Promise<void> {
  await page.emulateMedia({ colorScheme: theme });
  await page.evaluate(`document.documentElement.dataset.theme = ${JSON.stringify(theme)}`);
}

/** Critical and serious findings of axe on the page now, in this theme. */
async function findings(page: Page, theme: Theme): Promise<Finding[]> {
  await useTheme(page, theme);
  if (!(await page.evaluate<boolean>('typeof window.axe === "object"'))) await page.evaluate(axe.source);
  return page.evaluate<Finding[]>(runInPage);
}

function describeFindings(where: string, theme: Theme, found: Finding[]): string {
  return found
    .map((f) =>
      [
        `${where} (${theme}): ${f.impact ?? ''} ${f.id}: ${f.help}`,
        ...f.nodes.map((n) => `  at ${n.target}\n    ${n.summary.replace(/\n/g, '\n    ')}`),
      ].join('\n'),
    )
    .join('\n');
}

/**
 * Runs axe on the page in the light and the dark theme, then puts the page's theme back: every critical or
 * serious finding of both, one entry each, for `expect(...).toEqual([])` (empty when the page passes).
 */
export async function accessibilityProblems(page: Page, where: string): Promise<string[]> {
  await settled(page);
  const before = await page.evaluate<string>('document.documentElement.dataset.theme ?? ""');
  const problems: string[] = [];
  for (const theme of ['light', 'dark'] as const) {
    const found = await findings(page, theme);
    if (found.length > 0) problems.push(describeFindings(where, theme, found));
  }
  await page.emulateMedia({ colorScheme: null });
  await page.evaluate(
    before
      ? `document.documentElement.dataset.theme = ${JSON.stringify(before)}`
      : 'delete document.documentElement.dataset.theme',
  );
  return problems;
}
