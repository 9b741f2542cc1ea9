/**
 * zypper (openSUSE, SLES), always with `--non-interactive --xmlout`: its XML is the stable interface. Listing
 * is `list-updates` (`<update kind="package" name edition edition-old arch>`, the repository in `<source>`);
 * security is zypper's patch data: the packages that `patch --category security --dry-run` would upgrade.
 * Simulation is the run with `--dry-run`, read from its `<install-summary>`; the run is `update` (all, or
 * `-- names`) or `patch --category security`, with `--auto-agree-with-licenses`. A reboot is needed when
 * `/run/reboot-needed` exists or `zypper needs-rebooting` exits 102. Packages zypper keeps back are not
 * reported as `held` (its XML summary does not list them).
 */
import type { AvailableUpdate, PlannedChange } from '@svc/protocol';
import { CommandMissingError } from '../run-command.js';
import { stdoutOf, type Invocation, type PackageManagerDriver, type Selection } from './types.js';

const base = ['--non-interactive', '--xmlout'];
/** Exit codes that are not failures: 100+ are zypper's "informational" ones (102: reboot needed, 103: zypper itself was updated, run again, 106: a repository was skipped). */
const informational = [0, 100, 101, 102, 103, 106];

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref.startsWith('#x') || ref.startsWith('#X')) return String.fromCodePoint(parseInt(ref.slice(2), 16));
    if (ref.startsWith('#')) return String.fromCodePoint(parseInt(ref.slice(1), 10));
    return entities[ref] ?? whole;
  });
}

/** The attributes of one start tag (`name="x" edition="1"`). */
function attributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([A-Za-z_:][\w.:-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) {
    out[m[1] ?? ''] = unescapeXml(m[2] ?? m[3] ?? '');
  }
  return out;
}

/** `zypper --xmlout list-updates`: each `<update kind="package">` with its `<source alias>`. */
export function parseZypperUpdates(xml: string, securityNames: ReadonlySet<string>): AvailableUpdate[] {
  const updates: AvailableUpdate[] = [];
  for (const m of xml.matchAll(/<update\s([^>]*?)(\/>|>([\s\S]*?)<\/update>)/g)) {
    const attrs = attributes(m[1] ?? '');
    if ((attrs.kind ?? 'package') !== 'package' || !attrs.name || !attrs.edition) continue;
    const source = /<source\s([^>]*)\/?>/.exec(m[3] ?? '');
    const sourceAttrs = source ? attributes(source[1] ?? '') : {};
    updates.push({
      name: attrs.name,
      current_version: attrs['edition-old'] ?? null,
      new_version: attrs.edition,
      arch: attrs.arch ?? null,
      source: sourceAttrs.alias ?? sourceAttrs.url ?? null,
      security: securityNames.has(attrs.name),
    });
  }
  return updates;
}

const summaryActions: Record<string, PlannedChange['action']> = {
  'to-upgrade': 'upgrade',
  'to-install': 'install',
  'to-reinstall': 'install',
  'to-downgrade': 'downgrade',
  'to-remove': 'remove',
};

/** `<install-summary>` of a `--dry-run` (or a real run): each `<solvable>` in its to-upgrade, to-install… lists. */
export function parseZypperSummary(xml: string): PlannedChange[] {
  const changes: PlannedChange[] = [];
  for (const list of xml.matchAll(/<(to-[a-z-]+)>([\s\S]*?)<\/\1>/g)) {
    const action = summaryActions[list[1] ?? ''];
    if (!action) continue;
    for (const item of (list[2] ?? '').matchAll(/<solvable\s([^>]*?)\/?>/g)) {
      const attrs = attributes(item[1] ?? '');
      if (!attrs.name || (attrs.type ?? 'package') !== 'package') continue;
      const removed = action === 'remove';
      changes.push({
        name: attrs.name,
        action,
        from_version: removed ? (attrs.edition ?? null) : (attrs['edition-old'] ?? null),
        to_version: removed ? null : (attrs.edition ?? null),
      });
    }
  }
  return changes;
}

function selectionArgs(selection: Selection): string[] {
  switch (selection.selection) {
    case 'all':
      return ['update'];
    case 'security':
      return ['patch', '--category', 'security'];
    case 'named':
      return ['update', '--', ...selection.packages];
  }
}

export const zypperDriver: PackageManagerDriver = {
  name: 'zypper',
  refresh: { file: 'zypper', args: ['--non-interactive', 'refresh'], ok: informational },
  marksSecurity: true,
  async listUpdates(run) {
    const security = await stdoutOf(run, {
      file: 'zypper',
      args: [...base, 'patch', '--category', 'security', '--dry-run'],
      ok: informational,
    });
    const securityNames = new Set(
      parseZypperSummary(security)
        .filter((c) => c.action === 'upgrade')
        .map((c) => c.name),
    );
    const listed = await stdoutOf(run, {
      file: 'zypper',
      args: [...base, 'list-updates'],
      ok: informational,
    });
    return parseZypperUpdates(listed, securityNames);
  },
  simulation: (_run, selection): Promise<Invocation> =>
    Promise.resolve({
      file: 'zypper',
      args: [
        ...base,
        ...selectionArgs(selection).slice(0, 1),
        '--dry-run',
        ...selectionArgs(selection).slice(1),
      ],
      ok: informational,
    }),
  parseSimulation: parseZypperSummary,
  application: (_run, selection): Promise<Invocation> =>
    Promise.resolve({
      file: 'zypper',
      args: [
        ...base,
        ...selectionArgs(selection).slice(0, 1),
        '--auto-agree-with-licenses',
        ...selectionArgs(selection).slice(1),
      ],
      ok: informational,
    }),
  async rebootRequired(run, probe) {
    if (await probe.exists('/run/reboot-needed')) return true;
    try {
      return (await run({ file: 'zypper', args: ['needs-rebooting'] })).code === 102;
    } catch (error) {
      if (error instanceof CommandMissingError) return false;
      throw error;
    }
  },
  lastPatchedAt: (probe) => probe.newestMtime(['/var/log/zypp/history']),
};
