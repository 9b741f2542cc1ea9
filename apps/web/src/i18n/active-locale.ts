/**
 * The locale Intl formats with, for the formatting helpers that are plain functions (components/units.ts)
 * rather than hooks. The language provider sets it before it renders in a new language.
 */
let active = 'en';

export function activeLocale(): string {
  return active;
}

export function setActiveLocale(locale: string): void {
  active = locale;
}
