// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.zh-CN.js';
import { actions } from './actions.zh-CN.js';
import { admin } from './admin.zh-CN.js';
import { assetTabs } from './assetTabs.zh-CN.js';
import { audit } from './audit.zh-CN.js';
import { backup } from './backup.zh-CN.js';
import { bulk } from './bulk.zh-CN.js';
import { checks } from './checks.zh-CN.js';
import { connectors } from './connectors.zh-CN.js';
import { dependencies } from './dependencies.zh-CN.js';
import { discovery } from './discovery.zh-CN.js';
import { enrollment } from './enrollment.zh-CN.js';
import { groups } from './groups.zh-CN.js';
import { homeauto } from './homeauto.zh-CN.js';
import { hub } from './hub.zh-CN.js';
import { incidents } from './incidents.zh-CN.js';
import { integrations } from './integrations.zh-CN.js';
import { keys } from './keys.zh-CN.js';
import { maintenance } from './maintenance.zh-CN.js';
import { meshvpn } from './meshvpn.zh-CN.js';
import { metrics } from './metrics.zh-CN.js';
import { mobile } from './mobile.zh-CN.js';
import { nas } from './nas.zh-CN.js';
import { notifications } from './notifications.zh-CN.js';
import { prometheus } from './prometheus.zh-CN.js';
import { run } from './run.zh-CN.js';
import { schedules } from './schedules.zh-CN.js';
import { sessions } from './sessions.zh-CN.js';
import { settings } from './settings.zh-CN.js';
import { stacks } from './stacks.zh-CN.js';
import { tls } from './tls.zh-CN.js';
import { updates } from './updates.zh-CN.js';
import { users } from './users.zh-CN.js';
import { virt } from './virt.zh-CN.js';
import { webhooks } from './webhooks.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
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
