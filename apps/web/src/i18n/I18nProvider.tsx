/**
 * The console's language for React: `useT()` gives the translator of the language chosen (and the way to
 * choose another); the provider holds it. Choosing a language loads its catalogue first, then sets
 * `<html lang>` and the locale of the formatting helpers, then renders: no page shows half in one language.
 * The signed-in console's messages come in a chunk of their own (./catalogues.ts): the sign-in page does not
 * carry them, and `useConsoleMessages()` holds the signed-in console until they are there.
 */
import { createContext, Fragment, use, useContext, useMemo, useState, type ReactNode } from 'react';
import { setActiveLocale } from './active-locale';
import { loadCatalogue, loadConsoleCatalogue, loadEntryCatalogue } from './catalogues';
import { htmlLangOf, intlLocaleOf, rememberChoice, type LanguageChoice } from './languages';
import { en, type MessageKey } from './messages/en';
import { createTranslator, type Translator } from './translator';

interface I18nState {
  translator: Translator;
  setLanguage: (choice: LanguageChoice) => Promise<void>;
  /** Loads the console part of `translator`'s catalogue and makes the translator with it current. */
  complete: (translator: Translator) => Promise<void>;
}

const english = createTranslator('en', 'en', en, false);

const I18nContext = createContext<I18nState>({
  translator: english,
  setLanguage: () => Promise.resolve(),
  complete: () => Promise.resolve(),
});

/**
 * The translator of a language choice, its catalogue loaded: the entry part only (`entry`, for the first
 * render: the sign-in page needs no more) or whole. English's when the language's chunk cannot be fetched.
 */
export async function prepareTranslator(
  choice: LanguageChoice,
  part: 'entry' | 'whole' = 'whole',
): Promise<Translator> {
  const locale = intlLocaleOf(choice, navigator.languages);
  const load = part === 'entry' ? loadEntryCatalogue : loadCatalogue;
  const catalogue = await load(choice).catch(() => null);
  const translator = catalogue ? createTranslator(choice, locale, catalogue, part === 'whole') : english;
  document.documentElement.lang = htmlLangOf(translator.choice);
  setActiveLocale(translator.locale);
  return translator;
}

/** The console part being loaded for a translator: one load however many components wait for it. */
const completing = new WeakMap<Translator, Promise<void>>();

/** The console part of a choice's catalogue; English's when that language's chunk cannot be fetched. */
function loadConsoleOrEnglish(choice: LanguageChoice) {
  return loadConsoleCatalogue(choice).catch(() => loadConsoleCatalogue('en'));
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
      complete: (current) => {
        let pending = completing.get(current);
        if (!pending) {
          pending = loadConsoleOrEnglish(current.choice).then((part) => {
            const whole = createTranslator(current.choice, current.locale, { ...current.messages, ...part });
            // A language chosen meanwhile came whole: it stays.
            setTranslator((shown) => (shown === current ? whole : shown));
          });
          completing.set(current, pending);
        }
        return pending;
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

/**
 * Holds the component that calls it (Suspense) until the signed-in console's messages are loaded: the first
 * thing the signed-in console and the phone app do.
 */
export function useConsoleMessages(): void {
  const { translator, complete } = useContext(I18nContext);
  if (!translator.complete) use(complete(translator));
}
