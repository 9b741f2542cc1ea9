/**
 * What the language tests check on a page (decision 0090), for languages.e2e.test.ts and the tests of the
 * areas it does not visit: each language's whole catalogue (entry and console parts), that a page shows its
 * language with no missing key, and the pseudo-locale's check that every visible text is from a catalogue.
 */
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { consoleDe } from '../src/i18n/messages/console/de.js';
import { consoleEn } from '../src/i18n/messages/console/en.js';
import { consoleEs } from '../src/i18n/messages/console/es.js';
import { consoleFr } from '../src/i18n/messages/console/fr.js';
import { consoleZhCN } from '../src/i18n/messages/console/zh-CN.js';
import { de as entryDe } from '../src/i18n/messages/de.js';
import { en as entryEn, type Catalogue } from '../src/i18n/messages/en.js';
import { es as entryEs } from '../src/i18n/messages/es.js';
import { fr as entryFr } from '../src/i18n/messages/fr.js';
import { zhCN as entryZhCN } from '../src/i18n/messages/zh-CN.js';

export const en: Catalogue = { ...entryEn, ...consoleEn };
export const de: Catalogue = { ...entryDe, ...consoleDe };
const es: Catalogue = { ...entryEs, ...consoleEs };
export const fr: Catalogue = { ...entryFr, ...consoleFr };
export const zhCN: Catalogue = { ...entryZhCN, ...consoleZhCN };

/** Each language's code (`?lang=`) and whole catalogue. */
export const catalogues: [string, Catalogue][] = [
  ['en', en],
  ['de', de],
  ['es', es],
  ['fr', fr],
  ['zh-CN', zhCN],
];

/** What every translated page must show: its language on <html>, no `⟪key⟫` of a message not found. */
export async function expectLanguage(page: Page, lang: string): Promise<void> {
  expect(await page.evaluate<string>('document.documentElement.lang')).toBe(lang);
  expect(await page.evaluate<string>('document.body.innerText')).not.toContain('⟪');
}

export async function waitSettled(page: Page): Promise<void> {
  await page
    .locator('.loading')
    .first()
    .waitFor({ state: 'detached', timeout: 8_000 })
    .catch(() => undefined);
}

/**
 * Every visible text node, aria-label and placeholder of the page without the pseudo-locale's markers, except
 * data: inside [translate="no"], another [lang] (a language's own name), <code>, <kbd>, <time>, <script> or
 * <style>, and text of digits, spaces, punctuation and symbols only.
 */
export const unmarkedTexts = `(() => {
  const data = '[translate="no"], body [lang], code, kbd, time, script, style';
  const symbolsOnly = /^[\\d\\s.,:;%/()+\\-–—·…▲▼☀☾☰↑↓×]*$/u;
  const marked = (text) => text.includes('⟦') || text.includes('⟧');
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!parent || text === '' || symbolsOnly.test(text) || parent.closest(data)) continue;
    if (!parent.checkVisibility({ visibilityProperty: true, opacityProperty: false })) continue;
    if (!marked(text)) found.push('text: ' + text);
  }
  for (const element of document.body.querySelectorAll('[aria-label], [placeholder]')) {
    if (element.closest(data)) continue;
    for (const name of ['aria-label', 'placeholder']) {
      const value = element.getAttribute(name);
      if (value !== null && value.trim() !== '' && !marked(value)) found.push(name + ': ' + value);
    }
  }
  return found;
})()`;
