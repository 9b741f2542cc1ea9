/**
 * A fake package manager for fake agents and the fleet simulator (decision 0081): answers `updates.list`,
 * `updates.simulate` and `updates.apply` from a list of available updates the test gives, as apt or dnf would
 * (security ones marked, `named` upgrades only the names asked for, an unknown name is a failed simulation).
 */
import type { AgentRequestResult, AvailableUpdate, PackageManager, PlannedChange } from '@svc/protocol';
import type { FakeFailure, FakeHandlers } from './fake-agent.js';

export interface FakePackageManagerOptions {
  manager?: PackageManager;
  /** Available updates (default: three, one of them security). */
  updates?: AvailableUpdate[];
  /** Packages the manager keeps back (reported `held` in a simulation). */
  held?: string[];
  /** The apply's exit code (default 0); non-zero also leaves the updates in place. */
  applyExitCode?: number;
  /** The machine needs a reboot after an apply (default true when a security update was installed). */
  rebootAfterApply?: boolean;
  /** Milliseconds each call takes (default 0). */
  delayMs?: number;
  /** Called when a simulate or apply starts and ends (tests count calls in flight). */
  onCall?: (phase: 'start' | 'end', type: 'updates.simulate' | 'updates.apply') => void;
  lastPatchedAt?: string | null;
}

export function sampleUpdates(): AvailableUpdate[] {
  return [
    {
      name: 'openssl',
      current_version: '3.0.2-0ubuntu1.14',
      new_version: '3.0.2-0ubuntu1.15',
      arch: 'amd64',
      source: 'jammy-security',
      security: true,
    },
    {
      name: 'curl',
      current_version: '7.81.0-1ubuntu1.15',
      new_version: '7.81.0-1ubuntu1.16',
      arch: 'amd64',
      source: 'jammy-updates',
      security: false,
    },
    {
      name: 'tzdata',
      current_version: '2024a-0ubuntu0.22.04',
      new_version: '2024b-0ubuntu0.22.04',
      arch: 'all',
      source: 'jammy-updates',
      security: false,
    },
  ];
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Handlers for `updates.*`, holding the machine's state (what is still available after an apply). */
export function fakePackageManager(options: FakePackageManagerOptions = {}): FakeHandlers {
  const manager = options.manager ?? 'apt';
  let available = [...(options.updates ?? sampleUpdates())];
  const held = new Set(options.held ?? []);
  let rebootRequired = false;
  let lastPatchedAt = options.lastPatchedAt ?? null;

  function plan(selection: string, names: readonly string[]): PlannedChange[] | { unknown: string[] } {
    if (selection === 'named') {
      const unknown = names.filter((n) => !available.some((u) => u.name === n));
      if (unknown.length > 0) return { unknown };
    }
    const chosen = available.filter((u) =>
      selection === 'security' ? u.security : selection === 'named' ? names.includes(u.name) : true,
    );
    return chosen.map((u) => ({
      name: u.name,
      action: held.has(u.name) ? 'held' : 'upgrade',
      from_version: u.current_version,
      to_version: held.has(u.name) ? null : u.new_version,
    }));
  }

  const output = (changes: readonly PlannedChange[], verb: string) =>
    changes
      .map((c) => `${verb} ${c.name} [${c.from_version ?? ''}] (${c.to_version ?? 'kept back'})`)
      .join('\n');

  return {
    'updates.list': async (): Promise<AgentRequestResult<'updates.list'>> => {
      if (options.delayMs) await sleep(options.delayMs);
      return {
        manager,
        updates: available,
        truncated: false,
        reboot_required: rebootRequired,
        last_patched_at: lastPatchedAt,
      };
    },
    'updates.simulate': async (payload): Promise<AgentRequestResult<'updates.simulate'> | FakeFailure> => {
      options.onCall?.('start', 'updates.simulate');
      try {
        if (options.delayMs) await sleep(options.delayMs);
        const changes = plan(payload.selection, payload.packages);
        if ('unknown' in changes) {
          return {
            error: {
              code: 'invalid_argument',
              message: `E: Unable to locate package ${changes.unknown.join(', ')}`,
            },
          };
        }
        return {
          manager,
          changes,
          truncated: false,
          output: output(changes, 'Inst'),
          output_truncated: false,
        };
      } finally {
        options.onCall?.('end', 'updates.simulate');
      }
    },
    'updates.apply': async (payload): Promise<AgentRequestResult<'updates.apply'> | FakeFailure> => {
      options.onCall?.('start', 'updates.apply');
      try {
        if (options.delayMs) await sleep(options.delayMs);
        const changes = plan(payload.selection, payload.packages);
        if ('unknown' in changes) {
          return {
            error: {
              code: 'invalid_argument',
              message: `E: Unable to locate package ${changes.unknown.join(', ')}`,
            },
          };
        }
        const exitCode = options.applyExitCode ?? 0;
        if (exitCode === 0) {
          const done = new Set(changes.filter((c) => c.action !== 'held').map((c) => c.name));
          const security = available.some((u) => u.security && done.has(u.name));
          available = available.filter((u) => !done.has(u.name));
          rebootRequired = rebootRequired || (options.rebootAfterApply ?? security);
          lastPatchedAt = new Date().toISOString();
        }
        return {
          manager,
          changes,
          truncated: false,
          exit_code: exitCode,
          timed_out: false,
          duration_ms: options.delayMs ?? 1,
          reboot_required: rebootRequired,
          rebooting: exitCode === 0 && payload.reboot_if_required && rebootRequired,
          output:
            exitCode === 0
              ? output(changes, 'Setting up')
              : 'E: Sub-process /usr/bin/dpkg returned an error code (1)',
          output_truncated: false,
        };
      } finally {
        options.onCall?.('end', 'updates.apply');
      }
    },
  };
}
