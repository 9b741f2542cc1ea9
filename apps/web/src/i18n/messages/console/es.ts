// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.es.js';
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { checks } from './checks.es.js';
import { groups } from './groups.es.js';
import { keys } from './keys.es.js';
import { maintenance } from './maintenance.es.js';
import { mobile } from './mobile.es.js';
import { notifications } from './notifications.es.js';
import { run } from './run.es.js';
import { schedules } from './schedules.es.js';
import { sessions } from './sessions.es.js';
import { settings } from './settings.es.js';
import { updates } from './updates.es.js';
import { users } from './users.es.js';
import { webhooks } from './webhooks.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
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
