// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.fr.js';
import { actions } from './actions.fr.js';
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { backup } from './backup.fr.js';
import { bulk } from './bulk.fr.js';
import { checks } from './checks.fr.js';
import { connectors } from './connectors.fr.js';
import { dependencies } from './dependencies.fr.js';
import { discovery } from './discovery.fr.js';
import { enrollment } from './enrollment.fr.js';
import { groups } from './groups.fr.js';
import { homeauto } from './homeauto.fr.js';
import { hub } from './hub.fr.js';
import { incidents } from './incidents.fr.js';
import { integrations } from './integrations.fr.js';
import { keys } from './keys.fr.js';
import { maintenance } from './maintenance.fr.js';
import { meshvpn } from './meshvpn.fr.js';
import { metrics } from './metrics.fr.js';
import { mobile } from './mobile.fr.js';
import { nas } from './nas.fr.js';
import { notifications } from './notifications.fr.js';
import { prometheus } from './prometheus.fr.js';
import { run } from './run.fr.js';
import { schedules } from './schedules.fr.js';
import { sessions } from './sessions.fr.js';
import { settings } from './settings.fr.js';
import { stacks } from './stacks.fr.js';
import { tls } from './tls.fr.js';
import { updates } from './updates.fr.js';
import { users } from './users.fr.js';
import { virt } from './virt.fr.js';
import { webhooks } from './webhooks.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
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
