// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.de.js';
import { actions } from './actions.de.js';
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { backup } from './backup.de.js';
import { bulk } from './bulk.de.js';
import { checks } from './checks.de.js';
import { connectors } from './connectors.de.js';
import { dependencies } from './dependencies.de.js';
import { discovery } from './discovery.de.js';
import { enrollment } from './enrollment.de.js';
import { groups } from './groups.de.js';
import { homeauto } from './homeauto.de.js';
import { hub } from './hub.de.js';
import { incidents } from './incidents.de.js';
import { integrations } from './integrations.de.js';
import { keys } from './keys.de.js';
import { maintenance } from './maintenance.de.js';
import { meshvpn } from './meshvpn.de.js';
import { metrics } from './metrics.de.js';
import { mobile } from './mobile.de.js';
import { nas } from './nas.de.js';
import { notifications } from './notifications.de.js';
import { prometheus } from './prometheus.de.js';
import { run } from './run.de.js';
import { schedules } from './schedules.de.js';
import { sessions } from './sessions.de.js';
import { settings } from './settings.de.js';
import { stacks } from './stacks.de.js';
import { tls } from './tls.de.js';
import { updates } from './updates.de.js';
import { users } from './users.de.js';
import { virt } from './virt.de.js';
import { webhooks } from './webhooks.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
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
