/**
 * Where each language's catalogue comes from. Two parts: the entry (what the sign-in page, the shell and the
 * shared components say) and the console (the signed-in pages, ./messages/console/). English's entry is in
 * the entry chunk; everything else is a chunk of its own: another language's entry is fetched before the
 * first render, the console part of any language with the signed-in console's chunk (decision 0090).
 */
import type { Language, LanguageChoice } from './languages';
import type { ConsoleCatalogue } from './messages/console/en';
import { en, type Catalogue, type EntryCatalogue } from './messages/en';

const entryLoaders: Readonly<Record<Exclude<Language, 'en'>, () => Promise<EntryCatalogue>>> = {
  de: async () => (await import('./messages/de')).de,
  es: async () => (await import('./messages/es')).es,
  fr: async () => (await import('./messages/fr')).fr,
  'zh-CN': async () => (await import('./messages/zh-CN')).zhCN,
};

const consoleLoaders: Readonly<Record<Language, () => Promise<ConsoleCatalogue>>> = {
  en: async () => (await import('./messages/console/en')).consoleEn,
  de: async () => (await import('./messages/console/de')).consoleDe,
  es: async () => (await import('./messages/console/es')).consoleEs,
  fr: async () => (await import('./messages/console/fr')).consoleFr,
  'zh-CN': async () => (await import('./messages/console/zh-CN')).consoleZhCN,
};

/** The language whose messages a choice shows: the pseudo-locale marks English's. */
function languageOf(choice: LanguageChoice): Language {
  return choice === 'pseudo' ? 'en' : choice;
}

/** The entry catalogue of a language choice. */
export async function loadEntryCatalogue(choice: LanguageChoice): Promise<EntryCatalogue> {
  const language = languageOf(choice);
  return language === 'en' ? en : entryLoaders[language]();
}

/** The console part of a language choice's catalogue. */
export function loadConsoleCatalogue(choice: LanguageChoice): Promise<ConsoleCatalogue> {
  return consoleLoaders[languageOf(choice)]();
}

/** A language choice's whole catalogue: both parts. */
export async function loadCatalogue(choice: LanguageChoice): Promise<Catalogue> {
  const [entry, console] = await Promise.all([loadEntryCatalogue(choice), loadConsoleCatalogue(choice)]);
  return { ...entry, ...console };
}
