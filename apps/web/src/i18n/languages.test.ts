import { describe, expect, it } from 'vitest';
import { intlLocaleOf, languageOfTag, preferredLanguage } from './languages';

describe('the reader’s language', () => {
  it('maps browser tags onto the console’s languages', () => {
    expect(languageOfTag('de-AT')).toBe('de');
    expect(languageOfTag('fr')).toBe('fr');
    expect(languageOfTag('zh-Hans-CN')).toBe('zh-CN');
    expect(languageOfTag('zh')).toBe('zh-CN');
    expect(languageOfTag('zh-TW')).toBeUndefined();
    expect(languageOfTag('pt-BR')).toBeUndefined();
  });

  it('takes the first of the browser’s languages the console has, else English', () => {
    expect(preferredLanguage(['pt-BR', 'es-MX', 'en'])).toBe('es');
    expect(preferredLanguage(['ja'])).toBe('en');
    expect(preferredLanguage([])).toBe('en');
  });

  it('formats in the reader’s own variant of the chosen language', () => {
    expect(intlLocaleOf('en', ['en-GB', 'de'])).toBe('en-GB');
    expect(intlLocaleOf('de', ['en-GB', 'de-CH'])).toBe('de-CH');
    expect(intlLocaleOf('fr', ['en-GB'])).toBe('fr');
    expect(intlLocaleOf('pseudo', ['de'])).toBe('en');
  });
});
