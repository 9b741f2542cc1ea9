/**
 * The signed-in console's messages in English, one file per area (`<area>.en.ts`) spread here; a chunk
 * loaded with the signed-in console (../../catalogues.ts), not in the sign-in page's. Each other language has
 * the same composition (`de.ts`, …) of its own area files, each typed by its English one: a key missing in a
 * language, or one only it has, is a compile error. How to add an area: docs/decisions/0090-console-languages.md.
 */
import { admin } from './admin.en.js';
import { assetTabs } from './assetTabs.en.js';
import { audit } from './audit.en.js';
import { actions } from './actions.en.js';
import { incidents } from './incidents.en.js';
import { prometheus } from './prometheus.en.js';
import { connectors } from './connectors.en.js';
import { tls } from './tls.en.js';
import { discovery } from './discovery.en.js';
import { dependencies } from './dependencies.en.js';

export const consoleEn = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...actions,
  ...incidents,
  ...prometheus,
  ...connectors,
  ...tls,
  ...discovery,
  ...dependencies,
};

export type ConsoleKey = keyof typeof consoleEn;
/** A language's console catalogue: exactly the English console keys. */
export type ConsoleCatalogue = Readonly<Record<ConsoleKey, string>>;
/** An area's messages in another language: exactly the keys of its English file. */
export type AreaTranslation<English> = Readonly<Record<keyof English, string>>;
