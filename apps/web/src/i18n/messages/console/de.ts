// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.de.js';
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { checks } from './checks.de.js';
import { groups } from './groups.de.js';
import { keys } from './keys.de.js';
import { maintenance } from './maintenance.de.js';
import { mobile } from './mobile.de.js';
import { notifications } from './notifications.de.js';
import { run } from './run.de.js';
import { schedules } from './schedules.de.js';
import { sessions } from './sessions.de.js';
import { settings } from './settings.de.js';
import { updates } from './updates.de.js';
import { users } from './users.de.js';
import { webhooks } from './webhooks.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
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
