// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.es.js';
import { assetTabs } from './assetTabs.es.js';
import { audit } from './audit.es.js';
import { backup } from './backup.es.js';
import { bulk } from './bulk.es.js';
import { enrollment } from './enrollment.es.js';
import { homeauto } from './homeauto.es.js';
import { hub } from './hub.es.js';
import { integrations } from './integrations.es.js';
import { meshvpn } from './meshvpn.es.js';
import { nas } from './nas.es.js';
import { stacks } from './stacks.es.js';
import { virt } from './virt.es.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleEs: ConsoleCatalogue = {
  ...admin,
  ...assetTabs,
  ...audit,
  ...backup,
  ...bulk,
  ...enrollment,
  ...homeauto,
  ...hub,
  ...integrations,
  ...meshvpn,
  ...nas,
  ...stacks,
  ...virt,
};
