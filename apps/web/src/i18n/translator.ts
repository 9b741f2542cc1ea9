/**
 * A translator: one language's catalogue over the formatter, parsed messages cached. A key the catalogue
 * lacks (the types make that a compile error; this is for what slips past them) shows as `⟪key⟫`, loud on
 * the page and in the browser tests, rather than a silent English fallback.
 */
import type { LanguageChoice } from './languages';
import { formatToParts, parseMessage, type MessageNode } from './message-format';
import type { Catalogue, MessageKey } from './messages/en';
import { accentText, markPseudo } from './pseudo';

type MessageArgs = Readonly<Record<string, string | number>>;

export interface Translator {
  choice: LanguageChoice;
  /** The messages it has: the entry catalogue only until the signed-in console's part is loaded. */
  messages: Partial<Catalogue>;
  /** Whether `messages` has the console part too (./catalogues.ts). */
  complete: boolean;
  /** The tag Intl formats with. */
  locale: string;
  t: (key: MessageKey, args?: MessageArgs) => string;
  /** A message whose arguments may be elements (links, code): its parts, text and elements in order. */
  parts: <T>(key: MessageKey, args: Readonly<Record<string, string | number | T>>) => (string | T)[];
}

function missingKeyText(key: string): string {
  return `⟪${key}⟫`;
}

export function createTranslator(
  choice: LanguageChoice,
  locale: string,
  catalogue: Partial<Catalogue>,
  complete = true,
): Translator {
  const parsed = new Map<MessageKey, readonly MessageNode[] | string>();
  const isPseudo = choice === 'pseudo';
  const nodesOf = (key: MessageKey): readonly MessageNode[] | string => {
    let entry = parsed.get(key);
    if (entry === undefined) {
      const source = catalogue[key];
      const result = source === undefined ? null : parseMessage(source);
      // A message that does not parse shows as written (the catalogue test keeps that from shipping).
      entry = result === null ? missingKeyText(key) : result.ok ? result.nodes : (source ?? '');
      parsed.set(key, entry);
    }
    return entry;
  };
  const parts = <T>(key: MessageKey, args: Readonly<Record<string, string | number | T>>): (string | T)[] => {
    const nodes = nodesOf(key);
    const out =
      typeof nodes === 'string'
        ? [nodes]
        : formatToParts(nodes, args, isPseudo ? { locale, transformText: accentText } : { locale });
    return isPseudo ? out.map((part) => (typeof part === 'string' ? markPseudo(part) : part)) : out;
  };
  return {
    choice,
    messages: catalogue,
    complete,
    locale,
    t: (key, args = {}) => parts<never>(key, args).join(''),
    parts,
  };
}
