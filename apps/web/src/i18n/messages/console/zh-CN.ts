// With its extension: the browser tests (Node's module resolution) read the catalogues too.
import { admin } from './admin.zh-CN.js';
import { assetTabs } from './assetTabs.zh-CN.js';
import { audit } from './audit.zh-CN.js';
import { backup } from './backup.zh-CN.js';
import { bulk } from './bulk.zh-CN.js';
import { enrollment } from './enrollment.zh-CN.js';
import { homeauto } from './homeauto.zh-CN.js';
import { hub } from './hub.zh-CN.js';
import { integrations } from './integrations.zh-CN.js';
import { meshvpn } from './meshvpn.zh-CN.js';
import { nas } from './nas.zh-CN.js';
import { stacks } from './stacks.zh-CN.js';
import { virt } from './virt.zh-CN.js';
import type { ConsoleCatalogue } from './en.js';

export const consoleZhCN: ConsoleCatalogue = {
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
