/**
 * Where each language's catalogue comes from: English is in the entry chunk (the source, and what the
 * sign-in page of most readers needs); every other language is a chunk of its own, fetched when chosen.
 */
import type { Language, LanguageChoice } from './languages';
import { en, type Catalogue } from './messages/en';

const loaders: Readonly<Record<Exclude<Language, 'en'>, () => Promise<Catalogue>>> = {
  de: async () => (await import('./messages/de')).de,
  es: async () => (await import('./messages/es')).es,
  fr: async () => (await import('./messages/fr')).fr,
  'zh-CN': async () => (await import('./messages/zh-CN')).zhCN,
};

/** The catalogue of a language choice; the pseudo-locale is English's, marked when formatted. */
export async function loadCatalogue(choice: LanguageChoice): Promise<Catalogue> {
  return choice === 'en' || choice === 'pseudo' ? en : loaders[choice]();
}
