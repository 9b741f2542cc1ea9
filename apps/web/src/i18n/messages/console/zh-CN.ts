// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.zh-CN.js';
import { assetTabs } from './assetTabs.zh-CN.js';
import { audit } from './audit.zh-CN.js';
import { actions } from './actions.zh-CN.js';
import { incidents } from './incidents.zh-CN.js';
import { prometheus } from './prometheus.zh-CN.js';
import { connectors } from './connectors.zh-CN.js';
import { tls } from './tls.zh-CN.js';
import { discovery } from './discovery.zh-CN.js';
import { dependencies } from './dependencies.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
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
