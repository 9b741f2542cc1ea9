/**
 * pacman (Arch and its kin). Listing is `checkupdates` (pacman-contrib: it syncs a copy of the databases, so
 * the list is fresh without a partial upgrade) when present, else `pacman -Qu` on the databases as they are;
 * both print `name old -> new` (`[ignored]` for IgnorePkg). pacman marks nothing as security: every update says
 * `security: false` and a `security` selection is refused. Arch supports only whole-system upgrades, so
 * `refresh` runs nothing on its own (`pacman -Sy` alone is a partial upgrade); the run of `all` is
 * `pacman -Syu --noconfirm` (refreshes as it upgrades), of named packages `pacman -S --needed --noconfirm --
 * names`. Simulation is `--print` of the same targets (`%n %v`: name and new version; whether a target is a new
 * dependency is not printed, so every one is `upgrade`, from_version unknown). A reboot is needed when the
 * running kernel's modules are gone from /usr/lib/modules (its package was upgraded).
 */
import type { AvailableUpdate, PlannedChange } from '@svc/protocol';
import { CommandMissingError } from '../run-command.js';
import { runningKernelRemoved, stdoutOf, type Invocation, type PackageManagerDriver } from './types.js';

/** `pacman -Qu` / `checkupdates`: `name old -> new`, `[ignored]` after a package IgnorePkg holds. */
export function parsePacmanUpdates(stdout: string): AvailableUpdate[] {
  const updates: AvailableUpdate[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) (\S+) -> (\S+)(?: \[ignored\])?\s*$/.exec(line);
    if (!m) continue;
    updates.push({
      name: m[1] ?? '',
      current_version: m[2] ?? null,
      new_version: m[3] ?? '',
      arch: null,
      source: null,
      security: false,
    });
  }
  return updates;
}

/** `--print --print-format '%n %v'`: one `name version` per target. */
export function parsePacmanPrint(stdout: string): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+) (\S+)$/.exec(line.trim());
    if (!m || line.startsWith(':: ')) continue;
    changes.push({ name: m[1] ?? '', action: 'upgrade', from_version: null, to_version: m[2] ?? null });
  }
  return changes;
}

const printFormat = ['--print', '--print-format', '%n %v'];

export const pacmanDriver: PackageManagerDriver = {
  name: 'pacman',
  refresh: null,
  marksSecurity: false,
  async listUpdates(run) {
    try {
      // checkupdates: exit 2 when there is nothing to update.
      return parsePacmanUpdates(await stdoutOf(run, { file: 'checkupdates', args: [], ok: [0, 2] }));
    } catch (error) {
      if (!(error instanceof CommandMissingError)) throw error;
    }
    // pacman -Qu exits 1 when nothing is out of date.
    return parsePacmanUpdates(await stdoutOf(run, { file: 'pacman', args: ['-Qu'], ok: [0, 1] }));
  },
  simulation: (_run, selection): Promise<Invocation> =>
    Promise.resolve(
      selection.selection === 'named'
        ? { file: 'pacman', args: ['-S', '--needed', ...printFormat, '--', ...selection.packages] }
        : { file: 'pacman', args: ['-Su', ...printFormat] },
    ),
  parseSimulation: parsePacmanPrint,
  application: (_run, selection): Promise<Invocation> =>
    Promise.resolve(
      selection.selection === 'named'
        ? { file: 'pacman', args: ['-S', '--needed', '--noconfirm', '--', ...selection.packages] }
        : { file: 'pacman', args: ['-Syu', '--noconfirm'] },
    ),
  rebootRequired: (_run, probe) => runningKernelRemoved(probe, '/usr/lib/modules'),
  lastPatchedAt: (probe) => probe.newestMtime(['/var/log/pacman.log']),
};
