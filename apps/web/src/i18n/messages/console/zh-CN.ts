// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.zh-CN.js';
import { assetTabs } from './assetTabs.zh-CN.js';
import { audit } from './audit.zh-CN.js';
import { maintenance } from './maintenance.zh-CN.js';
import { notifications } from './notifications.zh-CN.js';
import { webhooks } from './webhooks.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...maintenance,
  ...notifications,
  ...webhooks,
};
