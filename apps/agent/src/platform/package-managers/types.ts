/**
 * One driver per package manager behind one small interface (decision 0082). A driver says which argv lists,
 * simulates and applies a selection, and parses what its manager prints; it runs nothing itself: the updates
 * handler runs its invocations through the bounded runner, with a known environment, and never a shell.
 */
import type { AvailableUpdate, PackageManager, PlannedChange, UpdateSelection } from '@svc/protocol';

/**
 * One program run: argv only. `ok` lists the exit codes that are not a failure (default 0; dnf check-update:
 * 100 means updates), `okWhen` output that makes any exit a success (dnf --assumeno exits 1, "Operation aborted").
 */
export interface Invocation {
  readonly file: string;
  readonly args: readonly string[];
  readonly ok?: readonly number[];
  readonly okWhen?: RegExp;
}

/** What one run printed and how it ended, as the driver's parsers see it. */
export interface RunOutcome {
  code: number | null;
  stdout: string;
  /** The end of stdout and stderr interleaved. */
  output: string;
}

/** Whether an outcome is a success by the invocation's own rules. */
export function succeeded(invocation: Invocation, outcome: RunOutcome): boolean {
  if (outcome.code !== null && (invocation.ok ?? [0]).includes(outcome.code)) return true;
  return invocation.okWhen?.test(outcome.output) ?? false;
}

/** The argv as a person would type it (messages only; never run through a shell). */
export function commandLine(invocation: Invocation): string {
  return [invocation.file, ...invocation.args].join(' ');
}

/** Runs an invocation (bounded in time and output); a failure exit is returned, not thrown. */
export type RunInvocation = (invocation: Invocation) => Promise<RunOutcome>;

export interface Selection {
  selection: UpdateSelection;
  /** The names of a `named` selection (schema-checked: never starting with `-`); empty otherwise. */
  packages: readonly string[];
}

/** Where the machine's own state is read (the files and programs the drivers look at). */
export interface MachineProbe {
  /** Whether a file exists (reboot markers). */
  exists(path: string): Promise<boolean>;
  /** The newest modification time among these paths, null when none exists. */
  newestMtime(paths: readonly string[]): Promise<Date | null>;
  /** The running kernel's release (`uname -r`). */
  kernelRelease(): string;
}

export interface PackageManagerDriver {
  readonly name: PackageManager;
  /** Refreshes the manager's package lists; null when it has no separate step. */
  readonly refresh: Invocation | null;
  /** Whether it marks updates as security ones; a `security` selection is refused where it does not. */
  readonly marksSecurity: boolean;
  /** The available updates (security-marked where the manager says so). */
  listUpdates(run: RunInvocation): Promise<AvailableUpdate[]>;
  /**
   * The simulation of a selection (the manager's own dry-run mode), or null when the selection is empty
   * (a security selection where nothing is marked): nothing to do, nothing run.
   */
  simulation(run: RunInvocation, selection: Selection): Promise<Invocation | null>;
  /** What the simulation's output says the manager would do. */
  parseSimulation(stdout: string): PlannedChange[];
  /** The real run of the same selection, non-interactive. Null as for `simulation`. */
  application(run: RunInvocation, selection: Selection): Promise<Invocation | null>;
  rebootRequired(run: RunInvocation, probe: MachineProbe): Promise<boolean>;
  /** When the manager last changed packages (its log or database), null when not known. */
  lastPatchedAt(probe: MachineProbe): Promise<Date | null>;
}

/** A run the manager itself failed (a listing, a refresh, a simulation): the end of its output says why. */
export class ManagerFailure extends Error {
  constructor(invocation: Invocation, outcome: RunOutcome) {
    const how = outcome.code === null ? 'was stopped' : `exited with ${String(outcome.code)}`;
    const said = outcome.output.trim().split('\n').slice(-5).join('\n').slice(-1_000);
    super(`${commandLine(invocation).slice(0, 200)} ${how}${said ? `: ${said}` : ''}`);
    this.name = 'ManagerFailure';
  }
}

/** Runs an invocation and returns its stdout, or throws ManagerFailure. */
export async function stdoutOf(run: RunInvocation, invocation: Invocation): Promise<string> {
  const outcome = await run(invocation);
  if (!succeeded(invocation, outcome)) throw new ManagerFailure(invocation, outcome);
  return outcome.stdout;
}

/**
 * Where the manager leaves no reboot marker (pacman, apk): the running kernel's modules directory is gone, so
 * its package was upgraded. A machine without kernel modules at all (a container) never needs one.
 */
export async function runningKernelRemoved(probe: MachineProbe, modulesRoot: string): Promise<boolean> {
  if (!(await probe.exists(modulesRoot))) return false;
  return !(await probe.exists(`${modulesRoot}/${probe.kernelRelease()}`));
}
