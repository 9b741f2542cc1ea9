/**
 * apk (Alpine). Listing is `apk version -l '<'` (`name-oldver-rN < newver-rN`; apk versions hold no `-`, so
 * the name is all but the last two dash-separated parts). apk marks nothing as security: every update says
 * `security: false` and a `security` selection is refused. Simulation is `--simulate` of the run, read from
 * its `(i/n) Upgrading name (old -> new)` lines; the run is `apk upgrade` (all) or `apk add --upgrade --
 * names`. A reboot is needed when the running kernel's modules are gone from /lib/modules.
 */
import type { AvailableUpdate, PlannedChange } from '@svc/protocol';
import {
  runningKernelRemoved,
  stdoutOf,
  type Invocation,
  type PackageManagerDriver,
  type Selection,
} from './types.js';

/** `busybox-1.36.1-r2` → name `busybox`, version `1.36.1-r2`. */
function splitApkName(token: string): { name: string; version: string } | null {
  const parts = token.split('-');
  if (parts.length < 3) return null;
  return { name: parts.slice(0, -2).join('-'), version: parts.slice(-2).join('-') };
}

export function parseApkVersions(stdout: string): AvailableUpdate[] {
  const updates: AvailableUpdate[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^(\S+)\s+<\s+(\S+)/.exec(line);
    const installed = m ? splitApkName(m[1] ?? '') : null;
    if (!m || !installed) continue;
    updates.push({
      name: installed.name,
      current_version: installed.version,
      new_version: m[2] ?? '',
      arch: null,
      source: null,
      security: false,
    });
  }
  return updates;
}

const verbs: Record<string, PlannedChange['action']> = {
  Upgrading: 'upgrade',
  Installing: 'install',
  Downgrading: 'downgrade',
  Purging: 'remove',
  Removing: 'remove',
};

/** `(1/3) Upgrading musl (1.2.4-r1 -> 1.2.4-r2)`, `(2/3) Installing foo (1.0-r0)`, `(3/3) Purging bar (2-r0)`. */
export function parseApkSimulation(stdout: string): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const line of stdout.split('\n')) {
    const m = /^\(\d+\/\d+\) (\w+) (\S+) \(([^ )]+)(?: -> ([^ )]+))?\)/.exec(line.trim());
    const action = m ? verbs[m[1] ?? ''] : undefined;
    if (!m || !action) continue;
    const [, , name = '', first = '', second] = m;
    changes.push(
      action === 'install'
        ? { name, action, from_version: null, to_version: first }
        : action === 'remove'
          ? { name, action, from_version: first, to_version: null }
          : { name, action, from_version: first, to_version: second ?? null },
    );
  }
  return changes;
}

function runArgs(selection: Selection, extra: readonly string[]): string[] {
  return selection.selection === 'named'
    ? ['add', '--upgrade', ...extra, '--', ...selection.packages]
    : ['upgrade', ...extra];
}

export const apkDriver: PackageManagerDriver = {
  name: 'apk',
  refresh: { file: 'apk', args: ['update', '--quiet'] },
  marksSecurity: false,
  listUpdates: async (run) =>
    parseApkVersions(await stdoutOf(run, { file: 'apk', args: ['version', '-l', '<'] })),
  simulation: (_run, selection): Promise<Invocation> =>
    Promise.resolve({ file: 'apk', args: runArgs(selection, ['--simulate', '--no-progress']) }),
  parseSimulation: parseApkSimulation,
  application: (_run, selection): Promise<Invocation> =>
    Promise.resolve({ file: 'apk', args: runArgs(selection, ['--no-progress']) }),
  rebootRequired: (_run, probe) => runningKernelRemoved(probe, '/lib/modules'),
  lastPatchedAt: (probe) => probe.newestMtime(['/lib/apk/db/installed']),
};
