// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { account } from './account.es.js';
import { audit } from './audit.es.js';
import { keys } from './keys.es.js';
import { sessions } from './sessions.es.js';
import { users } from './users.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...audit,
  ...account,
  ...keys,
  ...users,
  ...sessions,
};
