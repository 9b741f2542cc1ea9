// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { maintenance } from './maintenance.fr.js';
import { notifications } from './notifications.fr.js';
import { webhooks } from './webhooks.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...maintenance,
  ...notifications,
  ...webhooks,
};
