// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.es.js';
import { actions } from './actions.es.js';
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { backup } from './backup.es.js';
import { bulk } from './bulk.es.js';
import { checks } from './checks.es.js';
import { connectors } from './connectors.es.js';
import { dependencies } from './dependencies.es.js';
import { discovery } from './discovery.es.js';
import { enrollment } from './enrollment.es.js';
import { groups } from './groups.es.js';
import { homeauto } from './homeauto.es.js';
import { hub } from './hub.es.js';
import { incidents } from './incidents.es.js';
import { integrations } from './integrations.es.js';
import { keys } from './keys.es.js';
import { maintenance } from './maintenance.es.js';
import { meshvpn } from './meshvpn.es.js';
import { metrics } from './metrics.es.js';
import { mobile } from './mobile.es.js';
import { nas } from './nas.es.js';
import { notifications } from './notifications.es.js';
import { prometheus } from './prometheus.es.js';
import { run } from './run.es.js';
import { schedules } from './schedules.es.js';
import { sessions } from './sessions.es.js';
import { settings } from './settings.es.js';
import { stacks } from './stacks.es.js';
import { tls } from './tls.es.js';
import { updates } from './updates.es.js';
import { users } from './users.es.js';
import { virt } from './virt.es.js';
import { webhooks } from './webhooks.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
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
