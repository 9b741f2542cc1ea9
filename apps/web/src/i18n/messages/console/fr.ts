// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { actions } from './actions.fr.js';
import { incidents } from './incidents.fr.js';
import { prometheus } from './prometheus.fr.js';
import { connectors } from './connectors.fr.js';
import { tls } from './tls.fr.js';
import { discovery } from './discovery.fr.js';
import { dependencies } from './dependencies.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
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
