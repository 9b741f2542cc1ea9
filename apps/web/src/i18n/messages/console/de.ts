// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.de.js';
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { keys } from './keys.de.js';
import { sessions } from './sessions.de.js';
import { users } from './users.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
  ...account,
  ...admin,
  ...assetTabs,
  ...audit,
  ...keys,
  ...sessions,
  ...users,
};
