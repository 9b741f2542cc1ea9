/**
 * apt (Debian, Ubuntu and their kin), through apt-get: its output is the stable interface (apt's own `apt`
 * says its CLI is not). Listing is `apt-get -s dist-upgrade` (everything a full upgrade would install, held
 * packages aside), read from its `Inst name [old] (new Label:Version/Archive [arch])` lines; an update is
 * security when its candidate comes from a `*-security` archive or a `Debian-Security` label. Runs are
 * `upgrade --with-new-pkgs` (what `apt upgrade` does: new dependencies may be installed, nothing is ever
 * removed; a kernel ABI bump is installed, not kept back), so an unattended run cannot remove packages; a
 * selection of names is `install --only-upgrade -- names` (never installs what is not there).
 */
import type { AvailableUpdate, PlannedChange } from '@svc/protocol';
import {
  stdoutOf,
  type Invocation,
  type PackageManagerDriver,
  type RunInvocation,
  type Selection,
} from './types.js';

/** Reads without apt's lock: listing may run beside another apt process (it changes nothing). */
const noLock = ['-o', 'Debug::NoLocking=1'];
/** Keep the local version of a changed configuration file, take the package's for an untouched one. */
const keepConfig = ['-o', 'Dpkg::Options::=--force-confdef', '-o', 'Dpkg::Options::=--force-confold'];

// Inst name [old] (new release-string [arch]) [extra]; the [old] is absent for a new package.
const instLine = /^Inst (\S+)(?: \[([^\]]+)\])? \((\S+) (.*?)(?: \[([^\]]+)\])?\)/;
const remvLine = /^Remv (\S+)(?: \[([^\]]+)\])?/;

interface InstEntry {
  name: string;
  from: string | null;
  to: string;
  release: string;
  arch: string | null;
}

function parseInst(line: string): InstEntry | null {
  const m = instLine.exec(line);
  if (!m) return null;
  return { name: m[1] ?? '', from: m[2] ?? null, to: m[3] ?? '', release: m[4] ?? '', arch: m[5] ?? null };
}

/**
 * Whether apt's release string (`Debian-Security:12/bookworm-security`, `Ubuntu:22.04/jammy-security`, several
 * joined by `, `) names a security archive: a `*-security` suite, or Debian's `Debian-Security` label (whose
 * older suites were `<codename>/updates`).
 */
export function isSecurityRelease(release: string): boolean {
  return release.split(', ').some((part) => {
    const [label, rest] = part.includes(':') ? [part.slice(0, part.indexOf(':')), part] : ['', part];
    const archive = rest.slice(rest.lastIndexOf('/') + 1);
    return /-security$/.test(archive) || label === 'Debian-Security';
  });
}

/** The upgrades of an `apt-get -s dist-upgrade` (Inst lines with an installed version). */
export function parseAptUpgrades(stdout: string): AvailableUpdate[] {
  const updates: AvailableUpdate[] = [];
  for (const line of stdout.split('\n')) {
    const inst = parseInst(line);
    if (!inst?.from) continue;
    updates.push({
      name: inst.name,
      current_version: inst.from,
      new_version: inst.to,
      arch: inst.arch,
      source: inst.release || null,
      security: isSecurityRelease(inst.release),
    });
  }
  return updates;
}

/** The names under one of apt's summary headings ("The following packages have been kept back:"). */
function listedUnder(stdout: string, heading: RegExp): string[] {
  const lines = stdout.split('\n');
  const names: string[] = [];
  let inside = false;
  for (const line of lines) {
    if (heading.test(line)) {
      inside = true;
      continue;
    }
    if (inside && line.startsWith('  ')) names.push(...line.trim().split(/\s+/));
    else inside = false;
  }
  return names;
}

/** What an `apt-get -s` run would do: Inst and Remv lines, downgrades and kept-back packages from the summary. */
export function parseAptSimulation(stdout: string): PlannedChange[] {
  const downgraded = new Set(listedUnder(stdout, /^The following packages will be DOWNGRADED:/));
  const changes: PlannedChange[] = [];
  for (const line of stdout.split('\n')) {
    const inst = parseInst(line);
    if (inst) {
      const action = !inst.from ? 'install' : downgraded.has(inst.name) ? 'downgrade' : 'upgrade';
      changes.push({ name: inst.name, action, from_version: inst.from, to_version: inst.to });
      continue;
    }
    const remv = remvLine.exec(line);
    if (remv)
      changes.push({
        name: remv[1] ?? '',
        action: 'remove',
        from_version: remv[2] ?? null,
        to_version: null,
      });
  }
  for (const name of listedUnder(stdout, /^The following packages have been kept back:/)) {
    changes.push({ name, action: 'held', from_version: null, to_version: null });
  }
  return changes;
}

/** The apt-get arguments of a selection (after the options); null: nothing selected. */
function selectionArgs(selection: Selection, securityNames: readonly string[]): string[] | null {
  switch (selection.selection) {
    case 'all':
      return ['upgrade', '--with-new-pkgs'];
    case 'security':
      return securityNames.length > 0 ? ['install', '--only-upgrade', '--', ...securityNames] : null;
    case 'named':
      return ['install', '--only-upgrade', '--', ...selection.packages];
  }
}

async function securityNames(run: RunInvocation, selection: Selection): Promise<string[]> {
  if (selection.selection !== 'security') return [];
  return (await listApt(run)).filter((u) => u.security).map((u) => u.name);
}

async function listApt(run: RunInvocation): Promise<AvailableUpdate[]> {
  return parseAptUpgrades(await stdoutOf(run, { file: 'apt-get', args: ['-s', ...noLock, 'dist-upgrade'] }));
}

export const aptDriver: PackageManagerDriver = {
  name: 'apt',
  refresh: { file: 'apt-get', args: ['-q', 'update'] },
  marksSecurity: true,
  listUpdates: listApt,
  async simulation(run, selection): Promise<Invocation | null> {
    const args = selectionArgs(selection, await securityNames(run, selection));
    return args ? { file: 'apt-get', args: ['-s', ...noLock, ...args] } : null;
  },
  parseSimulation: parseAptSimulation,
  async application(run, selection): Promise<Invocation | null> {
    const args = selectionArgs(selection, await securityNames(run, selection));
    return args ? { file: 'apt-get', args: ['-y', '-q', ...keepConfig, ...args] } : null;
  },
  async rebootRequired(_run, probe) {
    return (await probe.exists('/run/reboot-required')) || probe.exists('/var/run/reboot-required');
  },
  lastPatchedAt: (probe) => probe.newestMtime(['/var/log/apt/history.log', '/var/log/dpkg.log']),
};
