/**
 * The signed-in console's messages in English, one file per area (`<area>.en.ts`) spread here; a chunk
 * loaded with the signed-in console (../../catalogues.ts), not in the sign-in page's. Each other language has
 * the same composition (`de.ts`, …) of its own area files, each typed by its English one: a key missing in a
 * language, or one only it has, is a compile error. How to add an area: docs/decisions/0090-console-languages.md.
 */
import { account } from './account.en.js';
import { actions } from './actions.en.js';
import { admin } from './admin.en.js';
import { assetTabs } from './assetTabs.en.js';
import { audit } from './audit.en.js';
import { backup } from './backup.en.js';
import { bulk } from './bulk.en.js';
import { checks } from './checks.en.js';
import { connectors } from './connectors.en.js';
import { dependencies } from './dependencies.en.js';
import { discovery } from './discovery.en.js';
import { enrollment } from './enrollment.en.js';
import { groups } from './groups.en.js';
import { homeauto } from './homeauto.en.js';
import { hub } from './hub.en.js';
import { incidents } from './incidents.en.js';
import { integrations } from './integrations.en.js';
import { keys } from './keys.en.js';
import { maintenance } from './maintenance.en.js';
import { meshvpn } from './meshvpn.en.js';
import { metrics } from './metrics.en.js';
import { mobile } from './mobile.en.js';
import { nas } from './nas.en.js';
import { notifications } from './notifications.en.js';
import { prometheus } from './prometheus.en.js';
import { run } from './run.en.js';
import { schedules } from './schedules.en.js';
import { sessions } from './sessions.en.js';
import { settings } from './settings.en.js';
import { stacks } from './stacks.en.js';
import { tls } from './tls.en.js';
import { updates } from './updates.en.js';
import { users } from './users.en.js';
import { virt } from './virt.en.js';
import { webhooks } from './webhooks.en.js';

export const consoleEn = {
  ...account,
  ...actions,
  ...admin,
  ...assetTabs,
  ...audit,
  ...backup,
  ...bulk,
  ...checks,
  ...connectors,
  ...dependencies,
  ...discovery,
  ...enrollment,
  ...groups,
  ...homeauto,
  ...hub,
  ...incidents,
  ...integrations,
  ...keys,
  ...maintenance,
  ...meshvpn,
  ...metrics,
  ...mobile,
  ...nas,
  ...notifications,
  ...prometheus,
  ...run,
  ...schedules,
  ...sessions,
  ...settings,
  ...stacks,
  ...tls,
  ...updates,
  ...users,
  ...virt,
  ...webhooks,
};

export type ConsoleKey = keyof typeof consoleEn;
/** A language's console catalogue: exactly the English console keys. */
export type ConsoleCatalogue = Readonly<Record<ConsoleKey, string>>;
/** An area's messages in another language: exactly the keys of its English file. */
export type AreaTranslation<English> = Readonly<Record<keyof English, string>>;
