// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.zh-CN.js';
import { admin } from './admin.zh-CN.js';
import { assetTabs } from './assetTabs.zh-CN.js';
import { audit } from './audit.zh-CN.js';
import { checks } from './checks.zh-CN.js';
import { groups } from './groups.zh-CN.js';
import { keys } from './keys.zh-CN.js';
import { maintenance } from './maintenance.zh-CN.js';
import { mobile } from './mobile.zh-CN.js';
import { notifications } from './notifications.zh-CN.js';
import { run } from './run.zh-CN.js';
import { schedules } from './schedules.zh-CN.js';
import { sessions } from './sessions.zh-CN.js';
import { settings } from './settings.zh-CN.js';
import { updates } from './updates.zh-CN.js';
import { users } from './users.zh-CN.js';
import { webhooks } from './webhooks.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
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
