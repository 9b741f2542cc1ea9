/**
 * The console's languages and which one a reader gets: their own choice (kept in localStorage, like the
 * theme), else the first of the browser's languages the console has, else English. `?lang=<code>` in the
 * address picks one and keeps it too; `pseudo` is the pseudo-locale of the tests (English, every translated
 * string marked), never offered in the menu.
 */
export const languages = ['en', 'de', 'es', 'fr', 'zh-CN'] as const;
export type Language = (typeof languages)[number];
export type LanguageChoice = Language | 'pseudo';

/** Each language in its own words, for the language menu (not translated: a reader looks for their own). */
export const languageNames = {
  en: 'English',
  de: 'Deutsch',
  es: 'Español',
  fr: 'Français',
  'zh-CN': '简体中文',
} as const satisfies Record<Language, string>;

const storageKey = 'svc.language';

function isChoice(value: string | null | undefined): value is LanguageChoice {
  return value === 'pseudo' || (languages as readonly string[]).includes(value ?? '');
}

/** The console's language for a browser language tag: `de-AT` → `de`, `zh-Hans-CN` → `zh-CN`. */
export function languageOfTag(tag: string): Language | undefined {
  const lower = tag.toLowerCase();
  const primary = lower.split('-')[0] ?? '';
  if (primary === 'zh') return /-(tw|hk|mo|hant)\b/.test(lower) ? undefined : 'zh-CN';
  return languages.find((language) => language === primary);
}

/** The first of the reader's languages the console has, else English. */
export function preferredLanguage(tags: readonly string[]): Language {
  for (const tag of tags) {
    const language = languageOfTag(tag);
    if (language) return language;
  }
  return 'en';
}

function storedChoice(): LanguageChoice | null {
  try {
    const value = localStorage.getItem(storageKey);
    return isChoice(value) ? value : null;
  } catch {
    return null;
  }
}

export function rememberChoice(choice: LanguageChoice): void {
  try {
    localStorage.setItem(storageKey, choice);
  } catch {
    // private mode: the choice lasts for this page only
  }
}

/** The language to start with: `?lang=` (then kept), the kept choice, or the browser's. */
export function initialChoice(): LanguageChoice {
  const asked = new URLSearchParams(window.location.search).get('lang');
  if (isChoice(asked)) {
    rememberChoice(asked);
    return asked;
  }
  return storedChoice() ?? preferredLanguage(navigator.languages);
}

/**
 * The tag Intl formats with: the reader's own variant when it is of this language (en-GB dates for a British
 * reader who chose English), else the language itself.
 */
export function intlLocaleOf(choice: LanguageChoice, tags: readonly string[]): string {
  const language = choice === 'pseudo' ? 'en' : choice;
  return tags.find((tag) => languageOfTag(tag) === language) ?? language;
}

/** `<html lang>`: the pseudo-locale is English in the private-use tag pseudo-locales conventionally use. */
export function htmlLangOf(choice: LanguageChoice): string {
  return choice === 'pseudo' ? 'en-XA' : choice;
}
