// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { actions } from './actions.de.js';
import { incidents } from './incidents.de.js';
import { prometheus } from './prometheus.de.js';
import { connectors } from './connectors.de.js';
import { tls } from './tls.de.js';
import { discovery } from './discovery.de.js';
import { dependencies } from './dependencies.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
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
