// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { maintenance } from './maintenance.es.js';
import { notifications } from './notifications.es.js';
import { webhooks } from './webhooks.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...maintenance,
  ...notifications,
  ...webhooks,
};
