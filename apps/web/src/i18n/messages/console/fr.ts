// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.fr.js';
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { checks } from './checks.fr.js';
import { groups } from './groups.fr.js';
import { keys } from './keys.fr.js';
import { maintenance } from './maintenance.fr.js';
import { mobile } from './mobile.fr.js';
import { notifications } from './notifications.fr.js';
import { run } from './run.fr.js';
import { schedules } from './schedules.fr.js';
import { sessions } from './sessions.fr.js';
import { settings } from './settings.fr.js';
import { updates } from './updates.fr.js';
import { users } from './users.fr.js';
import { webhooks } from './webhooks.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
  ...account,
  ...admin,
  ...assetTabs,
  ...audit,
  ...checks,
  ...groups,
  ...keys,
  ...maintenance,
  ...mobile,
  ...notifications,
  ...run,
  ...schedules,
  ...sessions,
  ...settings,
  ...updates,
  ...users,
  ...webhooks,
};
