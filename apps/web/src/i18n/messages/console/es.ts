// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { actions } from './actions.es.js';
import { incidents } from './incidents.es.js';
import { prometheus } from './prometheus.es.js';
import { connectors } from './connectors.es.js';
import { tls } from './tls.es.js';
import { discovery } from './discovery.es.js';
import { dependencies } from './dependencies.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...actions,
  ...incidents,
  ...prometheus,
  ...connectors,
  ...tls,
  ...discovery,
  ...dependencies,
};
