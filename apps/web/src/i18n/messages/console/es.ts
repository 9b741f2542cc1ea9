// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.es.js';
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { keys } from './keys.es.js';
import { sessions } from './sessions.es.js';
import { users } from './users.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...account,
  ...admin,
  ...assetTabs,
  ...audit,
  ...keys,
  ...sessions,
  ...users,
};
