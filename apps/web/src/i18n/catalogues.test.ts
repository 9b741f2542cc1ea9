/**
 * Every catalogue has exactly the English keys, and every message of every language parses and formats
 * with sample arguments (the ones its English source uses: a language may not invent or drop one).
 */
import { describe, expect, it } from 'vitest';
import { loadCatalogue } from './catalogues';
import { languages } from './languages';
import { argumentNames, parseMessage } from './message-format';
import { consoleEn } from './messages/console/en';
import { en as entryEn, type Catalogue, type MessageKey } from './messages/en';
import { createTranslator } from './translator';

const en: Catalogue = { ...entryEn, ...consoleEn };
const keys = Object.keys(en).sort() as MessageKey[];

/** Sample values: each select branch is tried, numbers 0, 1, 2, 5 and 1,000,000. */
function samples(kind: 'text' | 'number' | 'select', branches: string[]): (string | number)[] {
  if (kind === 'number') return [0, 1, 2, 5, 1_000_000];
  if (kind === 'select') return [...branches, 'something-else'];
  return ['web-1'];
}

function selectBranches(source: string): string[] {
  return [...source.matchAll(/([\w-]+) \{/g)].map((m) => m[1] ?? '');
}

describe.each(languages)('the %s catalogue', (language) => {
  it('has exactly the English keys', async () => {
    const catalogue = await loadCatalogue(language);
    expect(Object.keys(catalogue).sort()).toEqual(keys);
  });

  it('parses every message and uses the English arguments', async () => {
    const catalogue = await loadCatalogue(language);
    for (const key of keys) {
      const parsed = parseMessage(catalogue[key]);
      expect(parsed.ok ? 'ok' : parsed.error, `${language} ${key}`).toBe('ok');
      const english = parseMessage(en[key]);
      if (!parsed.ok || !english.ok) continue;
      expect([...argumentNames(parsed.nodes).keys()].sort(), `${language} ${key}`).toEqual(
        [...argumentNames(english.nodes).keys()].sort(),
      );
    }
  });

  it('formats every message with sample arguments, leaving no argument unfilled', async () => {
    const catalogue = await loadCatalogue(language);
    const translator = createTranslator(language, language, catalogue);
    for (const key of keys) {
      const english = parseMessage(en[key]);
      if (!english.ok) throw new Error(`${key}: ${english.error}`);
      const names = [...argumentNames(english.nodes)];
      const variants = names.length === 0 ? [{}] : [];
      for (const [name, kind] of names) {
        for (const value of samples(kind, selectBranches(en[key]))) {
          const args: Record<string, string | number> = {};
          for (const [other, otherKind] of names) args[other] = otherKind === 'number' ? 3 : 'x';
          args[name] = value;
          variants.push(args);
        }
      }
      for (const args of variants) {
        const text = translator.t(key, args);
        expect(text, `${language} ${key}`).not.toMatch(/\{\w+\}|⟪/);
        expect(text.trim(), `${language} ${key}`).not.toBe('');
      }
    }
  });
});

describe('the pseudo-locale', () => {
  it('marks and accents the message’s text, not its arguments', () => {
    const translator = createTranslator('pseudo', 'en', en);
    expect(translator.t('common.editNamed', { name: 'web-1' })).toBe('⟦Éðîţ web-1⟧');
    expect(translator.t('pager.items', { total: 3 })).toBe('⟦3 îţéɱš⟧');
    expect(translator.parts('notFound.text', { path: 'P', link: { element: 'a' } })).toEqual([
      '⟦Ţĥé çöñšöļé ĥåš ñö þåĝé åţ P. ⟧',
      { element: 'a' },
      '⟦.⟧',
    ]);
  });

  it('shows a key no catalogue has as a marker', () => {
    const translator = createTranslator('de', 'de', {});
    expect(translator.t('shell.signOut')).toBe('⟪shell.signOut⟫');
  });
});
