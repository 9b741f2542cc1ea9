/**
 * dnf (Fedora, RHEL and its rebuilds; dnf 4 and dnf 5 print alike where read here). Listing is
 * `dnf check-update` (exit 100: updates, 0: none), whose lines say name.arch, the new version and the
 * repository, not the installed version (current_version is null). Security is dnf's own advisory data:
 * `dnf updateinfo list --security` names the packages with an advisory of type security. Simulation is the
 * same command as the run with `--assumeno` (dnf answers "Operation aborted", exit 1); the run is
 * `dnf -y upgrade` (`--security` for the security selection, `-- names` for named ones). A reboot is needed
 * when `needs-restarting -r` (dnf-utils) exits 1.
 */
import type { AvailableUpdate, PlannedChange } from '@svc/protocol';
import { CommandMissingError } from '../run-command.js';
import { stdoutOf, type Invocation, type PackageManagerDriver, type Selection } from './types.js';

const architectures = /\.(x86_64|noarch|aarch64|i686|i386|ppc64le|ppc64|s390x|armv7hl|riscv64|src)$/;

/** `curl.x86_64` → name and arch. */
function splitNameArch(token: string): { name: string; arch: string | null } {
  const m = architectures.exec(token);
  return m ? { name: token.slice(0, m.index), arch: m[1] ?? null } : { name: token, arch: null };
}

/** `curl-8.6.0-7.fc40.x86_64` (a NEVRA without epoch) → `curl`. */
function nameOfNevra(token: string): string | null {
  const m = architectures.exec(token);
  if (!m) return null;
  const parts = token.slice(0, m.index).split('-');
  return parts.length >= 3 ? parts.slice(0, -2).join('-') : null;
}

/** Lines of a table whose long first column dnf wraps onto a line of its own, joined back. */
function joinedRows(stdout: string): string[] {
  const lines = stdout.split('\n');
  const rows: string[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const next = lines[i + 1];
    const lone = line.trim().length > 0 && !/\s/.test(line.trim()) && !line.trim().endsWith(':');
    if (lone && next !== undefined && /^\s+\S/.test(next)) {
      rows.push(`${line.trimEnd()} ${next.trim()}`);
      i += 1;
    } else rows.push(line);
  }
  return rows;
}

/** `dnf check-update`: `name.arch  version  repo` lines, up to the "Obsoleting Packages" part. */
export function parseDnfCheckUpdate(stdout: string, securityNames: ReadonlySet<string>): AvailableUpdate[] {
  const updates: AvailableUpdate[] = [];
  for (const row of joinedRows(stdout)) {
    if (/^Obsoleting Packages/.test(row)) break;
    const tokens = row.trim().split(/\s+/);
    if (tokens.length !== 3) continue;
    const [nameArch = '', version = '', repo = ''] = tokens;
    if (!architectures.test(nameArch) || !/^[0-9]/.test(version)) continue;
    const { name, arch } = splitNameArch(nameArch);
    updates.push({
      name,
      current_version: null,
      new_version: version,
      arch,
      source: repo,
      security: securityNames.has(name),
    });
  }
  return updates;
}

/** `dnf updateinfo list --security`: the package names of its advisories (the NEVRA column, wherever it is). */
export function parseDnfSecurityNames(stdout: string): Set<string> {
  const names = new Set<string>();
  for (const line of stdout.split('\n')) {
    for (const token of line.trim().split(/\s+/)) {
      const name = nameOfNevra(token);
      if (name) names.add(name);
    }
  }
  return names;
}

const sections: readonly [RegExp, PlannedChange['action'] | null][] = [
  [/^(Upgrading|Upgrade)\b/, 'upgrade'],
  [/^(Installing|Install)\b/, 'install'],
  [/^(Removing|Remove)\b/, 'remove'],
  [/^(Downgrading|Downgrade)\b/, 'downgrade'],
  [/^Skipping packages\b/, 'held'],
];

/**
 * dnf's transaction table (`--assumeno`): section headings at the line's start ("Upgrading:", "Installing
 * dependencies:", "Removing:"…), one package per indented line (name, arch, version, repository, size); dnf 5's
 * `replacing <name> <arch> <version>` under an upgrade gives its old version.
 */
export function parseDnfTransaction(stdout: string): PlannedChange[] {
  const changes: PlannedChange[] = [];
  let action: PlannedChange['action'] | null = null;
  for (const row of joinedRows(stdout)) {
    // A heading; dnf's parenthesised hints under one ("(add '--best --allowerasing' …):") are not.
    if (/^[^\s(].*:\s*$/.test(row)) {
      action = sections.find(([heading]) => heading.test(row))?.[1] ?? null;
      continue;
    }
    if (!/^\s/.test(row) || action === null) continue;
    const tokens = row.trim().split(/\s+/);
    if (tokens[0] === 'replacing') {
      const last = changes.at(-1);
      const replaced = splitNameArch(tokens[1] ?? '').name;
      if (last?.action === 'upgrade' && last.name === replaced) {
        // dnf 5: `replacing curl x86_64 8.6.0-7.fc40 …`; dnf 4: `replacing curl.x86_64 8.6.0-7.fc40`
        last.from_version = (architectures.test(tokens[1] ?? '') ? tokens[2] : tokens[3]) ?? null;
      }
      continue;
    }
    if (tokens.length < 4) continue;
    const [name = '', , version = ''] = tokens;
    const removed = action === 'remove';
    changes.push({
      name,
      action,
      from_version: removed ? version : null,
      to_version: removed ? null : version,
    });
  }
  return changes;
}

function selectionArgs(selection: Selection): string[] {
  switch (selection.selection) {
    case 'all':
      return ['upgrade'];
    case 'security':
      return ['upgrade', '--security'];
    case 'named':
      return ['upgrade', '--', ...selection.packages];
  }
}

export const dnfDriver: PackageManagerDriver = {
  name: 'dnf',
  refresh: { file: 'dnf', args: ['-q', 'makecache'] },
  marksSecurity: true,
  async listUpdates(run) {
    const security = parseDnfSecurityNames(
      await stdoutOf(run, { file: 'dnf', args: ['-q', 'updateinfo', 'list', '--security'] }),
    );
    const listed = await stdoutOf(run, { file: 'dnf', args: ['-q', 'check-update'], ok: [0, 100] });
    return parseDnfCheckUpdate(listed, security);
  },
  simulation: (_run, selection): Promise<Invocation> =>
    Promise.resolve({
      file: 'dnf',
      args: ['--assumeno', ...selectionArgs(selection)],
      okWhen: /^Operation aborted/m,
    }),
  parseSimulation: parseDnfTransaction,
  application: (_run, selection): Promise<Invocation> =>
    Promise.resolve({ file: 'dnf', args: ['-y', ...selectionArgs(selection)] }),
  async rebootRequired(run) {
    try {
      return (await run({ file: 'needs-restarting', args: ['-r'] })).code === 1;
    } catch (error) {
      if (error instanceof CommandMissingError) return false;
      throw error;
    }
  },
  lastPatchedAt: (probe) =>
    probe.newestMtime(['/var/log/dnf.rpm.log', '/var/lib/rpm/rpmdb.sqlite', '/var/lib/rpm/Packages']),
};
