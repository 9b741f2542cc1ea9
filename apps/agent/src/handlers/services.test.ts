import { describe, expect, it } from 'vitest';
import type { RunCommand } from '../platform/run-command.js';
import { CommandMissingError } from '../platform/run-command.js';
import {
  createServicesHandlers,
  isValidServiceName,
  mergeServices,
  parseListUnitFiles,
  parseListUnits,
} from './services.js';

const listUnitsOutput = `ssh.service                          loaded    active   running SSH server
cron.service                         loaded    active   running Regular background program processing daemon
● ghost.service                        not-found inactive dead    ghost.service
getty@tty1.service                   loaded    active   running Getty on tty1
systemd-fsck-root.service            loaded    inactive dead    File System Check on Root Device
nginx.service                        loaded    failed   failed  A high performance web server
`;

const listUnitFilesOutput = `ssh.service                            enabled         enabled
cron.service                           enabled         enabled
getty@.service                         enabled         enabled
nginx.service                          disabled        enabled
systemd-fsck-root.service              static          -
docker.service                         disabled        enabled
apt-daily.service                      static          -
masked-thing.service                   masked          enabled
`;

describe('systemctl output parsers', () => {
  it('parses list-units, including bulleted and templated units', () => {
    const units = parseListUnits(listUnitsOutput);
    expect(units.map((u) => u.name)).toEqual([
      'ssh.service',
      'cron.service',
      'ghost.service',
      'getty@tty1.service',
      'systemd-fsck-root.service',
      'nginx.service',
    ]);
    expect(units[2]).toEqual({
      name: 'ghost.service',
      load_state: 'not-found',
      active_state: 'inactive',
      sub_state: 'dead',
      description: 'ghost.service',
    });
    expect(units[1]?.description).toBe('Regular background program processing daemon');
  });

  it('joins unit-file states: enabled, disabled, static, and templates for instances', () => {
    const services = mergeServices(parseListUnits(listUnitsOutput), parseListUnitFiles(listUnitFilesOutput));
    const byName = new Map(services.map((s) => [s.name, s]));
    expect(byName.get('ssh.service')?.enabled).toBe(true);
    expect(byName.get('nginx.service')).toMatchObject({ enabled: false, active_state: 'failed' });
    expect(byName.get('systemd-fsck-root.service')?.enabled).toBeNull();
    expect(byName.get('getty@tty1.service')?.enabled).toBe(true);
    // installed but not loaded: listed so it can be started
    expect(byName.get('docker.service')).toEqual({
      name: 'docker.service',
      description: '',
      load_state: 'not-loaded',
      active_state: 'inactive',
      sub_state: 'dead',
      enabled: false,
    });
    expect(byName.get('masked-thing.service')?.enabled).toBe(false);
    expect(byName.has('getty@.service')).toBe(false);
    expect(services.map((s) => s.name)).toEqual(
      [...services.map((s) => s.name)].sort((a, b) => a.localeCompare(b)),
    );
  });
});

describe('service names', () => {
  it.each([
    'nginx',
    'nginx.service',
    'getty@tty1.service',
    'dbus-org.freedesktop.timedate1.service',
    'a_b:c',
  ])('accepts %s', (name) => {
    expect(isValidServiceName(name)).toBe(true);
  });
  it.each(['', '-H', '--host=evil', 'a b', 'x;reboot', '$(id)', 'a/b', '../x', 'n\nx', 'x'.repeat(257)])(
    'refuses %j',
    (name) => {
      expect(isValidServiceName(name)).toBe(false);
    },
  );
});

function recorder(answers: Record<string, { code: number; stdout?: string; stderr?: string }>): {
  run: RunCommand;
  calls: string[][];
} {
  const calls: string[][] = [];
  const run: RunCommand = (file, args) => {
    calls.push([file, ...args]);
    const answer = answers[args[0] ?? ''];
    if (!answer) return Promise.reject(new Error(`unexpected ${args.join(' ')}`));
    return Promise.resolve({ code: answer.code, stdout: answer.stdout ?? '', stderr: answer.stderr ?? '' });
  };
  return { run, calls };
}

describe('services on a systemd host (systemctl stubbed)', () => {
  it('lists services from systemctl with argv, never a shell', async () => {
    const { run, calls } = recorder({
      'list-units': { code: 0, stdout: listUnitsOutput },
      'list-unit-files': { code: 0, stdout: listUnitFilesOutput },
    });
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => true });
    const result = await services['services.list']({});
    expect(result.manager).toBe('systemd');
    expect(result.services.find((s) => s.name === 'cron.service')).toMatchObject({
      active_state: 'active',
      enabled: true,
    });
    expect(calls).toEqual([
      ['systemctl', 'list-units', '--type=service', '--all', '--no-legend', '--no-pager', '--plain'],
      ['systemctl', 'list-unit-files', '--type=service', '--no-legend', '--no-pager', '--plain'],
    ]);
  });

  it('runs an action as [action, name] and reports the new state', async () => {
    const { run, calls } = recorder({ restart: { code: 0 }, show: { code: 0, stdout: 'active\n' } });
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => true });
    await expect(services['services.action']({ name: 'nginx.service', action: 'restart' })).resolves.toEqual({
      name: 'nginx.service',
      action: 'restart',
      active_state: 'active',
    });
    expect(calls[0]).toEqual(['systemctl', 'restart', 'nginx.service']);
  });

  it('refuses an invalid name before running anything', async () => {
    const { run, calls } = recorder({});
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => true });
    await expect(services['services.action']({ name: '--no-block', action: 'stop' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    await expect(services['services.action']({ name: 'x;reboot', action: 'stop' })).rejects.toMatchObject({
      code: 'invalid_argument',
    });
    expect(calls).toEqual([]);
  });

  it('maps a unit that does not exist to not_found', async () => {
    const { run } = recorder({
      start: { code: 5, stderr: 'Failed to start nope.service: Unit nope.service not found.\n' },
    });
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => true });
    await expect(
      services['services.action']({ name: 'nope.service', action: 'start' }),
    ).rejects.toMatchObject({ code: 'not_found' });
  });

  it('reports any other failure with systemctl’s message', async () => {
    const { run } = recorder({
      start: {
        code: 1,
        stderr: 'Job for x.service failed because the control process exited with error code.',
      },
    });
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => true });
    await expect(services['services.action']({ name: 'x.service', action: 'start' })).rejects.toMatchObject({
      code: 'failed',
      message: expect.stringContaining('control process exited') as unknown,
    });
  });
});

describe('services on a host without systemd', () => {
  it('says so clearly: list reports manager none, actions are unsupported', async () => {
    const { run, calls } = recorder({});
    const services = createServicesHandlers({ runCommand: run, isSystemdRunning: () => false });
    await expect(services['services.list']({})).resolves.toEqual({ manager: 'none', services: [] });
    await expect(services['services.action']({ name: 'ssh', action: 'restart' })).rejects.toMatchObject({
      code: 'unsupported',
      message: 'this host has no systemd',
    });
    expect(calls).toEqual([]);
  });

  it('treats a missing systemctl the same way', async () => {
    const missing: RunCommand = (file) => Promise.reject(new CommandMissingError(file));
    const services = createServicesHandlers({ runCommand: missing, isSystemdRunning: () => true });
    await expect(services['services.list']({})).resolves.toEqual({ manager: 'none', services: [] });
    await expect(services['services.action']({ name: 'ssh', action: 'stop' })).rejects.toMatchObject({
      code: 'unsupported',
      message: 'this host has no systemd',
    });
  });

  it('on this machine, agrees with whether PID 1 is systemd', async () => {
    const services = createServicesHandlers();
    const { existsSync } = await import('node:fs');
    const booted = existsSync('/run/systemd/system');
    const result = await services['services.list']({}).catch((error: unknown) => error);
    if (booted) expect(result).toMatchObject({ manager: 'systemd' });
    else expect(result).toEqual({ manager: 'none', services: [] });
  });
});
