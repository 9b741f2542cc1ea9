/**
 * updates.* through the real bounded runner against recorded managers: small sh scripts named `apt-get` or
 * `pacman`, first on the PATH the handlers are given, printing recorded apt output (the format checked live in
 * apps/hub/src/e2e/package-updates.test.ts). What is checked is what the hub sees: the argv and environment
 * the manager got, refusals, one operation at a time, the output's end kept, the timeout stopping the whole
 * process group, and the reboot going through the power path (never a real one: `reboot` is a recorder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { updatesLimits } from '@svc/protocol';
import { requestValidators } from '../channel/frames.js';
import type { MachineProbe } from '../platform/package-managers/types.js';
import { AgentError } from './agent-error.js';
import { createUpdatesHandlers, type UpdatesOptions } from './updates.js';

let dir: string;

const listing = `Inst svc-demo [1.0] (1.1 Debian-Security:12/bookworm-security [all])
Inst svc-tool [1.0] (1.1 Debian:12/bookworm [all])
`;

/** A recorded apt-get: logs its argv and environment, answers listings and simulations, runs `apply.sh`. */
function fakeAptGet(options: { simulateSleep?: number } = {}): void {
  fs.writeFileSync(path.join(dir, 'listing.txt'), listing);
  fs.writeFileSync(
    path.join(dir, 'apt-get'),
    [
      '#!/bin/sh',
      `printf '%s\\n' "$*" >> ${dir}/calls`,
      `env | sort > ${dir}/env`,
      'case "$1" in',
      `  -s) case "$*" in *dist-upgrade*) cat ${dir}/listing.txt;; *) ${options.simulateSleep ? `sleep ${String(options.simulateSleep)};` : ''} cat ${dir}/listing.txt;; esac;;`,
      `  -y) exec ${dir}/apply.sh;;`,
      '  -q) echo refreshed;;',
      'esac',
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  writeApply('echo "Setting up svc-demo (1.1) ..."\n');
}

/** Whether a process still runs (a zombie waiting for its new parent to reap it does not). */
function isRunning(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3));
  } catch {
    return false;
  }
}

function writeApply(body: string): void {
  fs.writeFileSync(path.join(dir, 'apply.sh'), `#!/bin/sh\n${body}`, { mode: 0o755 });
}

const calls = () =>
  fs.existsSync(path.join(dir, 'calls'))
    ? fs.readFileSync(path.join(dir, 'calls'), 'utf8').trim().split('\n')
    : [];

function machine(rebootRequired: boolean): MachineProbe {
  return {
    exists: (file) => Promise.resolve(rebootRequired && file === '/run/reboot-required'),
    newestMtime: () => Promise.resolve(new Date('2026-11-01T10:00:00Z')),
    kernelRelease: () => '6.1.0',
  };
}

function handlers(options: Partial<UpdatesOptions> = {}) {
  const reboots: string[] = [];
  const made = createUpdatesHandlers({
    path: `${dir}:/usr/bin:/bin`,
    probe: machine(false),
    killGraceMs: 300,
    reboot: () => {
      reboots.push('reboot');
      return Promise.resolve({ accepted: true });
    },
    ...options,
  });
  return { ...made, reboots };
}

const apply = {
  selection: 'all' as const,
  packages: [],
  refresh: false,
  timeout_ms: 20_000,
  reboot_if_required: false,
};

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-updates-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('updates.list', () => {
  it('says no manager when none is on the PATH', async () => {
    const h = handlers({ path: dir });
    await expect(h['updates.list']({ refresh: false })).resolves.toEqual({
      manager: null,
      updates: [],
      truncated: false,
      reboot_required: false,
      last_patched_at: null,
    });
    await expect(
      h['updates.simulate']({ selection: 'all', packages: [], refresh: false }),
    ).rejects.toMatchObject({
      code: 'unsupported',
      message: expect.stringMatching(/no supported package manager/) as unknown,
    });
  });

  it('refreshes, lists through apt-get -s dist-upgrade in a known environment', async () => {
    fakeAptGet();
    const h = handlers({ probe: machine(true) });
    const listed = await h['updates.list']({ refresh: true });
    expect(listed).toMatchObject({
      manager: 'apt',
      truncated: false,
      reboot_required: true,
      last_patched_at: '2026-11-01T10:00:00.000Z',
    });
    expect(listed.updates.map((u) => [u.name, u.security])).toEqual([
      ['svc-demo', true],
      ['svc-tool', false],
    ]);
    expect(calls()).toEqual(['-q update', '-s -o Debug::NoLocking=1 dist-upgrade']);
    const env = fs.readFileSync(path.join(dir, 'env'), 'utf8');
    expect(env).toMatch(/^LC_ALL=C$/m);
    expect(env).toMatch(/^DEBIAN_FRONTEND=noninteractive$/m);
    expect(env).toMatch(new RegExp(`^PATH=${dir}:/usr/bin:/bin$`, 'm'));
    // Nothing of the agent's own environment reaches the manager.
    expect(env).not.toMatch(/^VITEST/m);
  });
});

describe('updates.simulate and updates.apply', () => {
  it('refuses what the selection cannot mean, running nothing', async () => {
    fakeAptGet();
    const h = handlers();
    await expect(
      h['updates.simulate']({ selection: 'named', packages: [], refresh: false }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    await expect(
      h['updates.apply']({ ...apply, selection: 'security', packages: ['svc-demo'] }),
    ).rejects.toMatchObject({ code: 'invalid_argument' });
    fs.writeFileSync(path.join(dir, 'pacman'), '#!/bin/sh\n', { mode: 0o755 });
    const pacman = handlers({ path: dir });
    fs.rmSync(path.join(dir, 'apt-get'));
    await expect(
      pacman['updates.simulate']({ selection: 'security', packages: [], refresh: false }),
    ).rejects.toMatchObject({
      code: 'unsupported',
      message: expect.stringMatching(/pacman marks no update/) as unknown,
    });
    expect(calls()).toEqual([]);
  });

  it('refuses a package name that could be read as an option, by the catalogue’s schema', () => {
    const check = requestValidators.get('updates.simulate');
    expect(check?.payload.Check({ selection: 'named', packages: ['svc-demo'], refresh: false })).toBe(true);
    for (const name of ['-oAPT::Update::Pre-Invoke::=touch /x', '--allow-downgrades', 'a b', '']) {
      expect(check?.payload.Check({ selection: 'named', packages: [name], refresh: false })).toBe(false);
    }
  });

  it('passes named packages after --', async () => {
    fakeAptGet();
    const simulated = await handlers()['updates.simulate']({
      selection: 'named',
      packages: ['svc-tool'],
      refresh: false,
    });
    expect(simulated.manager).toBe('apt');
    expect(calls()).toEqual(['-s -o Debug::NoLocking=1 install --only-upgrade -- svc-tool']);
  });

  it('runs one operation at a time: a second simulate or apply is refused while one runs, a listing is not', async () => {
    fakeAptGet({ simulateSleep: 1.5 });
    const h = handlers();
    const first = h['updates.simulate']({ selection: 'all', packages: [], refresh: false });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const refusal = {
      code: 'exists',
      message: expect.stringMatching(/an update operation \(simulate\) is already running/) as unknown,
    };
    await expect(
      h['updates.simulate']({ selection: 'all', packages: [], refresh: false }),
    ).rejects.toMatchObject(refusal);
    await expect(h['updates.apply'](apply)).rejects.toMatchObject(refusal);
    await expect(h['updates.list']({ refresh: true })).rejects.toMatchObject(refusal);
    await expect(h['updates.list']({ refresh: false })).resolves.toMatchObject({ manager: 'apt' });
    await expect(first).resolves.toMatchObject({ changes: expect.any(Array) as unknown });
    // Once it is over, the next one runs.
    await expect(h['updates.apply'](apply)).resolves.toMatchObject({ exit_code: 0 });
  });

  it('keeps the end of a long output and says it was cut', async () => {
    fakeAptGet();
    writeApply(
      `head -c ${String(updatesLimits.outputBytes * 2)} /dev/zero | tr '\\0' x\necho\necho THE END\n`,
    );
    const result = await handlers()['updates.apply'](apply);
    expect(result.output_truncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(updatesLimits.outputBytes);
    expect(result.output).toMatch(/THE END\n$/);
    expect(result).toMatchObject({ exit_code: 0, timed_out: false });
  });

  it('stops the manager and what it started at timeout_ms (SIGTERM, then SIGKILL of the group)', async () => {
    fakeAptGet();
    // Ignores SIGTERM, and leaves a child of its own running: both must go.
    writeApply(`trap '' TERM\nsleep 30 &\necho $! > ${dir}/child.pid\necho started\nwait\n`);
    const started = Date.now();
    const result = await handlers()['updates.apply']({ ...apply, timeout_ms: 1_000 });
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result).toMatchObject({ timed_out: true, exit_code: null, rebooting: false });
    expect(result.output).toMatch(/started/);
    expect(result.output).toMatch(/apt was stopped after 1000 ms/);
    const child = Number(fs.readFileSync(path.join(dir, 'child.pid'), 'utf8'));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(isRunning(child)).toBe(false);
  });

  it('reboots through the power path after a successful apply that needs it, and only then', async () => {
    fakeAptGet();
    const needing = handlers({ probe: machine(true) });
    const rebooted = await needing['updates.apply']({ ...apply, reboot_if_required: true });
    expect(rebooted).toMatchObject({ exit_code: 0, reboot_required: true, rebooting: true });
    expect(rebooted.changes.map((c) => c.name)).toEqual(['svc-demo', 'svc-tool']);
    expect(needing.reboots).toEqual(['reboot']);

    const notAsked = handlers({ probe: machine(true) });
    expect(await notAsked['updates.apply'](apply)).toMatchObject({ reboot_required: true, rebooting: false });
    expect(notAsked.reboots).toEqual([]);

    writeApply('echo "E: dpkg was interrupted" >&2\nexit 100\n');
    const failing = handlers({ probe: machine(true) });
    expect(await failing['updates.apply']({ ...apply, reboot_if_required: true })).toMatchObject({
      exit_code: 100,
      rebooting: false,
    });
    expect(failing.reboots).toEqual([]);
  });

  it('says why it did not reboot when power actions are refused', async () => {
    fakeAptGet();
    const refused = handlers({
      probe: machine(true),
      reboot: () => Promise.reject(new AgentError('unsupported', 'power actions are disabled on this agent')),
    });
    const result = await refused['updates.apply']({ ...apply, reboot_if_required: true });
    expect(result).toMatchObject({ reboot_required: true, rebooting: false });
    expect(result.output).toMatch(/needs a reboot, but it was not started: power actions are disabled/);
  });
});
