/** The package-manager drivers (decision 0082), one per manager of the protocol's `packageManagers`. */
import type { PackageManager } from '@svc/protocol';
import { apkDriver } from './apk.js';
import { aptDriver } from './apt.js';
import { dnfDriver } from './dnf.js';
import { pacmanDriver } from './pacman.js';
import type { PackageManagerDriver } from './types.js';
import { zypperDriver } from './zypper.js';

export const packageManagerDrivers: { readonly [M in PackageManager]: PackageManagerDriver } = {
  apt: aptDriver,
  dnf: dnfDriver,
  zypper: zypperDriver,
  pacman: pacmanDriver,
  apk: apkDriver,
};
