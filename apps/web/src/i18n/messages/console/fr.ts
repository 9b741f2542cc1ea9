// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.fr.js';
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { backup } from './backup.fr.js';
import { bulk } from './bulk.fr.js';
import { checks } from './checks.fr.js';
import { enrollment } from './enrollment.fr.js';
import { groups } from './groups.fr.js';
import { homeauto } from './homeauto.fr.js';
import { hub } from './hub.fr.js';
import { integrations } from './integrations.fr.js';
import { keys } from './keys.fr.js';
import { maintenance } from './maintenance.fr.js';
import { meshvpn } from './meshvpn.fr.js';
import { nas } from './nas.fr.js';
import { notifications } from './notifications.fr.js';
import { run } from './run.fr.js';
import { schedules } from './schedules.fr.js';
import { sessions } from './sessions.fr.js';
import { settings } from './settings.fr.js';
import { stacks } from './stacks.fr.js';
import { updates } from './updates.fr.js';
import { users } from './users.fr.js';
import { virt } from './virt.fr.js';
import { webhooks } from './webhooks.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
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
