// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.fr.js';
import { assetTabs } from './assetTabs.fr.js';
import { audit } from './audit.fr.js';
import { backup } from './backup.fr.js';
import { bulk } from './bulk.fr.js';
import { enrollment } from './enrollment.fr.js';
import { homeauto } from './homeauto.fr.js';
import { hub } from './hub.fr.js';
import { integrations } from './integrations.fr.js';
import { meshvpn } from './meshvpn.fr.js';
import { nas } from './nas.fr.js';
import { stacks } from './stacks.fr.js';
import { virt } from './virt.fr.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleFr: ConsoleCatalogue = {
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
