/**
 * updates.list / updates.simulate / updates.apply: the machine's own package manager (decision 0082), found
 * by detect.ts and driven through its driver (platform/package-managers/), every program run with argv in a
 * known environment (C locale, noninteractive, a fixed PATH), in its own process group, bounded in time and
 * output (the end kept). One operation that can change the machine (a refresh, a simulation, an apply) runs at
 * a time: a second one is refused while it runs. After a successful apply that leaves the machine needing a
 * reboot, `reboot_if_required` reboots through the power handler, so allow_power_actions still decides.
 */
import { stat } from 'node:fs/promises';
import os from 'node:os';
import {
  updatesLimits,
  type AgentRequestPayload,
  type AgentRequestResult,
  type PackageManager,
  type UpdateSelection,
} from '@svc/protocol';
import { findPackageManager, managerPath } from '../platform/package-managers/detect.js';
import { packageManagerDrivers } from '../platform/package-managers/index.js';
import {
  commandLine,
  ManagerFailure,
  succeeded,
  type Invocation,
  type MachineProbe,
  type PackageManagerDriver,
  type RunInvocation,
  type Selection,
} from '../platform/package-managers/types.js';
import {
  CommandMissingError,
  runBounded as defaultRunBounded,
  TailBuffer,
  type BoundedRunResult,
  type RunBounded,
} from '../platform/run-command.js';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';

export interface UpdatesOptions {
  /** Reboots the machine the way power.reboot does (and refuses as it does). */
  reboot: () => Promise<{ accepted: boolean }>;
  /** The PATH the managers are found on and run with (tests put recorded managers first). */
  path?: string;
  runBounded?: RunBounded;
  probe?: MachineProbe;
  /**
   * How long a refresh, a listing or a simulation may run: 5 minutes, so a dry run with a refresh first ends
   * within the hub's 10 minutes for it.
   */
  stepTimeoutMs?: number;
  /** After a timeout's SIGTERM, how long the manager's group gets before SIGKILL. */
  killGraceMs?: number;
}

type UpdatesType = 'updates.list' | 'updates.simulate' | 'updates.apply';

const defaultProbe: MachineProbe = {
  async exists(file) {
    return stat(file).then(
      () => true,
      () => false,
    );
  },
  async newestMtime(files) {
    const times = await Promise.all(
      files.map((file) =>
        stat(file).then(
          (s) => s.mtime,
          () => null,
        ),
      ),
    );
    const found = times.filter((t): t is Date => t !== null);
    return found.length === 0 ? null : new Date(Math.max(...found.map((t) => t.getTime())));
  },
  kernelRelease: () => os.release(),
};

const noManager = `no supported package manager (${Object.keys(packageManagerDrivers).join(', ')}) was found on this machine`;

/** The selection of a simulate or apply, checked beyond the schema. */
function checkedSelection(
  driver: PackageManagerDriver,
  selection: UpdateSelection,
  packages: readonly string[],
): Selection {
  if (selection === 'named' && packages.length === 0)
    throw new AgentError('invalid_argument', 'selection named needs at least one package');
  if (selection !== 'named' && packages.length > 0)
    throw new AgentError(
      'invalid_argument',
      `packages are only given with selection named, not ${selection}`,
    );
  if (selection === 'security' && !driver.marksSecurity)
    throw new AgentError(
      'unsupported',
      `${driver.name} marks no update as a security one; choose the selection all or named`,
    );
  return { selection, packages };
}

/** The end of several outputs joined, with whether anything was cut. */
function joinOutputs(parts: readonly { output: string; truncated: boolean }[]): {
  output: string;
  output_truncated: boolean;
} {
  const tail = new TailBuffer(updatesLimits.outputBytes);
  for (const part of parts) tail.push(Buffer.from(part.output));
  return {
    output: tail.text(),
    output_truncated: tail.truncated || parts.some((p) => p.truncated),
  };
}

export function createUpdatesHandlers(options: UpdatesOptions): Pick<HandlerMap, UpdatesType> {
  const searchPath = options.path ?? managerPath;
  const runBounded = options.runBounded ?? defaultRunBounded;
  const probe = options.probe ?? defaultProbe;
  const stepTimeoutMs = options.stepTimeoutMs ?? 5 * 60_000;
  const killGraceMs = options.killGraceMs ?? 10_000;
  const env: Record<string, string> = {
    PATH: searchPath,
    LC_ALL: 'C',
    LANG: 'C',
    HOME: os.homedir(),
    TERM: 'dumb',
    DEBIAN_FRONTEND: 'noninteractive',
    APT_LISTCHANGES_FRONTEND: 'none',
    // Ubuntu's needrestart: restart services without asking instead of waiting for an answer.
    NEEDRESTART_MODE: 'a',
  };

  /** The operation running now (refresh, simulate, apply), null when none. */
  let running: string | null = null;

  async function exclusive<T>(what: string, work: () => Promise<T>): Promise<T> {
    if (running !== null)
      throw new AgentError(
        'exists',
        `an update operation (${running}) is already running on this machine; try again when it has finished`,
      );
    running = what;
    try {
      return await work();
    } finally {
      running = null;
    }
  }

  async function execute(invocation: Invocation, timeoutMs: number): Promise<BoundedRunResult> {
    try {
      return await runBounded(invocation.file, invocation.args, {
        env,
        timeoutMs,
        killGraceMs,
        maxOutputBytes: updatesLimits.outputBytes,
      });
    } catch (error) {
      if (error instanceof CommandMissingError) throw error;
      throw new AgentError('failed', `${invocation.file}: ${(error as Error).message}`);
    }
  }

  const run: RunInvocation = async (invocation) => {
    const result = await execute(invocation, stepTimeoutMs);
    return { code: result.code, stdout: result.stdout, output: result.output };
  };

  /** A step that must succeed (refresh, simulation): its failure is the request's, with the manager's words. */
  async function step(invocation: Invocation, deadline: number): Promise<BoundedRunResult> {
    const timeoutMs = Math.max(1, Math.min(stepTimeoutMs, deadline - Date.now()));
    const result = await execute(invocation, timeoutMs);
    if (result.timedOut)
      throw new AgentError(
        'timeout',
        `${commandLine(invocation).slice(0, 200)} did not finish in ${String(Math.round(timeoutMs / 1000))} s`,
      );
    if (!succeeded(invocation, result))
      throw new AgentError('failed', new ManagerFailure(invocation, result).message);
    return result;
  }

  async function driverOrNull(): Promise<PackageManagerDriver | null> {
    const manager: PackageManager | null = await findPackageManager(searchPath);
    return manager ? packageManagerDrivers[manager] : null;
  }

  async function requireDriver(): Promise<PackageManagerDriver> {
    const driver = await driverOrNull();
    if (!driver) throw new AgentError('unsupported', noManager);
    return driver;
  }

  /** Failures of the drivers' own runs (listings) become the catalog's. */
  async function guarded<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (error instanceof ManagerFailure) throw new AgentError('failed', error.message);
      if (error instanceof CommandMissingError)
        throw new AgentError('unsupported', `${error.file} is not installed on this machine`);
      throw error;
    }
  }

  async function refresh(driver: PackageManagerDriver, wanted: boolean, deadline = Infinity) {
    if (!wanted || !driver.refresh) return { output: '', truncated: false };
    const result = await step(driver.refresh, deadline);
    return { output: result.output, truncated: result.outputTruncated };
  }

  async function simulate(driver: PackageManagerDriver, selection: Selection, deadline = Infinity) {
    const invocation = await driver.simulation(run, selection);
    if (!invocation)
      return {
        changes: [],
        output: 'nothing is selected: no available update is marked security\n',
        truncated: false,
      };
    const result = await step(invocation, deadline);
    return {
      changes: driver.parseSimulation(result.stdout),
      output: result.output,
      truncated: result.outputTruncated,
    };
  }

  async function list(
    payload: AgentRequestPayload<'updates.list'>,
  ): Promise<AgentRequestResult<'updates.list'>> {
    const driver = await driverOrNull();
    if (!driver)
      return { manager: null, updates: [], truncated: false, reboot_required: false, last_patched_at: null };
    const listing = () =>
      guarded(async () => {
        await refresh(driver, payload.refresh);
        return driver.listUpdates(run);
      });
    // A refresh changes the manager's lists: one at a time, like a run. A plain listing reads only.
    const updates = payload.refresh ? await exclusive('refresh', listing) : await listing();
    const lastPatched = await driver.lastPatchedAt(probe);
    return {
      manager: driver.name,
      updates: updates.slice(0, updatesLimits.packages),
      truncated: updates.length > updatesLimits.packages,
      reboot_required: await guarded(() => driver.rebootRequired(run, probe)),
      last_patched_at: lastPatched ? lastPatched.toISOString() : null,
    };
  }

  return {
    'updates.list': list,

    async 'updates.simulate'(payload) {
      const driver = await requireDriver();
      const selection = checkedSelection(driver, payload.selection, payload.packages);
      return exclusive('simulate', () =>
        guarded(async () => {
          const refreshed = await refresh(driver, payload.refresh);
          const simulated = await simulate(driver, selection);
          return {
            manager: driver.name,
            changes: simulated.changes.slice(0, updatesLimits.packages),
            truncated: simulated.changes.length > updatesLimits.packages,
            ...joinOutputs([refreshed, simulated]),
          };
        }),
      );
    },

    async 'updates.apply'(payload) {
      const driver = await requireDriver();
      const selection = checkedSelection(driver, payload.selection, payload.packages);
      return exclusive('apply', () =>
        guarded(async () => {
          // timeout_ms bounds the whole apply: the refresh and the simulation before the run count in it.
          const deadline = Date.now() + payload.timeout_ms;
          const refreshed = await refresh(driver, payload.refresh, deadline);
          // What the run will do, from the manager's own simulation just before it.
          const planned = await simulate(driver, selection, deadline);
          const invocation = await driver.application(run, selection);
          const notes: string[] = [];
          const applied = invocation ? await execute(invocation, Math.max(1, deadline - Date.now())) : null;
          if (!invocation) notes.push(planned.output);
          if (applied?.timedOut)
            notes.push(
              `\n[svc-agent] ${driver.name} was stopped after ${String(payload.timeout_ms)} ms (timeout_ms)\n`,
            );
          const ok = !invocation || !applied || (!applied.timedOut && succeeded(invocation, applied));
          const rebootRequired = await driver.rebootRequired(run, probe);
          let rebooting = false;
          if (ok && rebootRequired && payload.reboot_if_required) {
            try {
              rebooting = (await options.reboot()).accepted;
              notes.push('\n[svc-agent] the machine needs a reboot: rebooting now\n');
            } catch (error) {
              notes.push(
                `\n[svc-agent] the machine needs a reboot, but it was not started: ${(error as Error).message}\n`,
              );
            }
          }
          return {
            manager: driver.name,
            changes: planned.changes.slice(0, updatesLimits.packages),
            truncated: planned.changes.length > updatesLimits.packages,
            exit_code: applied ? applied.code : 0,
            timed_out: applied?.timedOut ?? false,
            duration_ms: applied?.durationMs ?? 0,
            reboot_required: rebootRequired,
            rebooting,
            ...joinOutputs([
              refreshed,
              ...(applied ? [{ output: applied.output, truncated: applied.outputTruncated }] : []),
              ...notes.map((note) => ({ output: note, truncated: false })),
            ]),
          };
        }),
      );
    },
  };
}
