// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { maintenance } from './maintenance.de.js';
import { notifications } from './notifications.de.js';
import { webhooks } from './webhooks.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...maintenance,
  ...notifications,
  ...webhooks,
};
