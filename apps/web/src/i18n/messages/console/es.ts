// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.es.js';
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { backup } from './backup.es.js';
import { bulk } from './bulk.es.js';
import { checks } from './checks.es.js';
import { enrollment } from './enrollment.es.js';
import { groups } from './groups.es.js';
import { homeauto } from './homeauto.es.js';
import { hub } from './hub.es.js';
import { integrations } from './integrations.es.js';
import { keys } from './keys.es.js';
import { maintenance } from './maintenance.es.js';
import { meshvpn } from './meshvpn.es.js';
import { nas } from './nas.es.js';
import { notifications } from './notifications.es.js';
import { run } from './run.es.js';
import { schedules } from './schedules.es.js';
import { sessions } from './sessions.es.js';
import { settings } from './settings.es.js';
import { stacks } from './stacks.es.js';
import { updates } from './updates.es.js';
import { users } from './users.es.js';
import { virt } from './virt.es.js';
import { webhooks } from './webhooks.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...account,
  ...admin,
  ...assetTabs,
  ...audit,
  ...backup,
  ...bulk,
  ...checks,
  ...enrollment,
  ...groups,
  ...homeauto,
  ...hub,
  ...integrations,
  ...keys,
  ...maintenance,
  ...meshvpn,
  ...nas,
  ...notifications,
  ...run,
  ...schedules,
  ...sessions,
  ...settings,
  ...stacks,
  ...updates,
  ...users,
  ...virt,
  ...webhooks,
};
