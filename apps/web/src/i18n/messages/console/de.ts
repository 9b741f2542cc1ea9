// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.de.js';
import { assetTabs } from './assetTabs.de.js';
import { audit } from './audit.de.js';
import { backup } from './backup.de.js';
import { bulk } from './bulk.de.js';
import { enrollment } from './enrollment.de.js';
import { homeauto } from './homeauto.de.js';
import { hub } from './hub.de.js';
import { integrations } from './integrations.de.js';
import { meshvpn } from './meshvpn.de.js';
import { nas } from './nas.de.js';
import { stacks } from './stacks.de.js';
import { virt } from './virt.de.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleDe: ConsoleCatalogue = {
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
