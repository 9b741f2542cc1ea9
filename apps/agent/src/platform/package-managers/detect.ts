/**
 * Which package manager this machine has (decision 0082), without loading any driver: the hello asks at every
 * connect, and an idle agent holds no updates code (decision 0067). The first manager whose program is an
 * executable on the known PATH, in this order: a Debian machine may also have dnf, zypper or pacman installed
 * from its archive, and apt is still its manager.
 */
import { constants } from 'node:fs';
import { access } from '../fs-async.js';
import path from 'node:path';
import type { PackageManager } from '@svc/protocol';

/** The PATH the managers run with, whatever the agent's own: their programs and helpers are found alike. */
export const managerPath = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

/** Each manager and the program that means it, in the order they are looked for. */
const managerPrograms: readonly (readonly [PackageManager, string])[] = [
  ['apt', 'apt-get'],
  ['dnf', 'dnf'],
  ['zypper', 'zypper'],
  ['pacman', 'pacman'],
  ['apk', 'apk'],
];

async function isExecutable(file: string): Promise<boolean> {
  try {
    await access(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

export async function findPackageManager(searchPath = managerPath): Promise<PackageManager | null> {
  const dirs = searchPath.split(':').filter((dir) => path.isAbsolute(dir));
  for (const [manager, program] of managerPrograms) {
    for (const dir of dirs) {
      if (await isExecutable(path.join(dir, program))) return manager;
    }
  }
  return null;
}
