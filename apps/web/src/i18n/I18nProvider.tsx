/**
 * The console's language for React: `useT()` gives the translator of the language chosen (and the way to
 * choose another); the provider holds it. Choosing a language loads its catalogue first, then sets
 * `<html lang>` and the locale of the formatting helpers, then renders: no page shows half in one language.
 */
import { createContext, Fragment, useContext, useMemo, useState, type ReactNode } from 'react';
import { setActiveLocale } from './active-locale';
import { loadCatalogue } from './catalogues';
import { htmlLangOf, intlLocaleOf, rememberChoice, type LanguageChoice } from './languages';
import { en, type MessageKey } from './messages/en';
import { createTranslator, type Translator } from './translator';

interface I18nState {
  translator: Translator;
  setLanguage: (choice: LanguageChoice) => Promise<void>;
}

const english = createTranslator('en', 'en', en);

const I18nContext = createContext<I18nState>({ translator: english, setLanguage: () => Promise.resolve() });

/** The translator of a language choice, its catalogue loaded (English when its chunk cannot be fetched). */
export async function prepareTranslator(choice: LanguageChoice): Promise<Translator> {
  const locale = intlLocaleOf(choice, navigator.languages);
  const catalogue = await loadCatalogue(choice).catch(() => null);
  const translator = catalogue ? createTranslator(choice, locale, catalogue) : english;
  document.documentElement.lang = htmlLangOf(translator.choice);
  setActiveLocale(translator.locale);
  return translator;
}

export function I18nProvider({ initial, children }: { initial: Translator; children: ReactNode }) {
  const [translator, setTranslator] = useState(initial);
  const state = useMemo<I18nState>(
    () => ({
      translator,
      setLanguage: async (choice) => {
        rememberChoice(choice);
        setTranslator(await prepareTranslator(choice));
      },
    }),
    [translator],
  );
  return <I18nContext value={state}>{children}</I18nContext>;
}

export interface I18n {
  t: Translator['t'];
  /** A message whose arguments are elements, ready to render. */
  rich: (key: MessageKey, args: Readonly<Record<string, string | number | ReactNode>>) => ReactNode;
  language: LanguageChoice;
  setLanguage: (choice: LanguageChoice) => Promise<void>;
}

export function useT(): I18n {
  const { translator, setLanguage } = useContext(I18nContext);
  return useMemo(
    () => ({
      t: translator.t,
      rich: (key, args) =>
        translator.parts<ReactNode>(key, args).map((part, index) => <Fragment key={index}>{part}</Fragment>),
      language: translator.choice,
      setLanguage,
    }),
    [translator, setLanguage],
  );
}
