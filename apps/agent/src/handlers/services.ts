/**
 * services.*: systemd through `systemctl` with an argument vector, never a shell. Names are checked against
 * the catalog's pattern again here (and may not start with `-`, which systemctl would read as an option).
 * A host without systemd says so: the list reports manager `none`, an action answers `unsupported`.
 */
import { existsSync } from 'node:fs';
import type { AgentRequestPayload, AgentRequestResult, ServiceInfo } from '@svc/protocol';
import {
  CommandMissingError,
  runCommand as defaultRunCommand,
  type RunCommand,
} from '../platform/run-command.js';
import { AgentError } from './agent-error.js';
import type { HandlerMap } from './types.js';
import { byName } from './by-name.js';

const noSystemdMessage = 'this host has no systemd';

const serviceNamePattern = /^[A-Za-z0-9@._:-]+$/;

export function isValidServiceName(name: string): boolean {
  return name.length > 0 && name.length <= 256 && serviceNamePattern.test(name) && !name.startsWith('-');
}

type UnitRow = Omit<ServiceInfo, 'enabled'>;

/** `systemctl list-units --type=service --all --no-legend --no-pager --plain`: UNIT LOAD ACTIVE SUB DESCRIPTION. */
export function parseListUnits(text: string): UnitRow[] {
  const rows: UnitRow[] = [];
  for (const raw of text.split('\n')) {
    // Some versions still mark failed or missing units with a bullet despite --plain.
    const line = raw.replace(/^[\s●*]+/, '').trimEnd();
    if (!line) continue;
    const match = /^(\S+)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const [, name = '', load = '', active = '', sub = '', description = ''] = match;
    if (!name.endsWith('.service') || name.length > 256) continue;
    rows.push({
      name,
      load_state: load.slice(0, 32),
      active_state: active.slice(0, 32),
      sub_state: sub.slice(0, 32),
      description: description.slice(0, 1024),
    });
  }
  return rows;
}

/** `systemctl list-unit-files --type=service --no-legend --no-pager --plain`: UNIT STATE [PRESET]. */
export function parseListUnitFiles(text: string): Map<string, string> {
  const states = new Map<string, string>();
  for (const line of text.split('\n')) {
    const [name, state] = line.trim().split(/\s+/);
    if (name?.endsWith('.service') && name.length <= 256 && state) states.set(name, state);
  }
  return states;
}

/** Whether a unit file state means "starts at boot"; null when the question does not apply (static units). */
function isEnabledState(state: string | undefined): boolean | null {
  switch (state ?? '') {
    case 'enabled':
    case 'enabled-runtime':
    case 'alias':
      return true;
    case 'disabled':
    case 'masked':
    case 'masked-runtime':
    case 'linked':
    case 'linked-runtime':
      return false;
    default:
      return null;
  }
}

/** An instance `name@arg.service` takes its state from the template `name@.service`. */
function unitFileState(states: Map<string, string>, name: string): string | undefined {
  const direct = states.get(name);
  if (direct) return direct;
  const at = name.indexOf('@');
  return at > 0 ? states.get(`${name.slice(0, at + 1)}.service`) : undefined;
}

/** Joins the loaded units with the unit files that are installed but not loaded (a disabled service). */
export function mergeServices(units: UnitRow[], files: Map<string, string>): ServiceInfo[] {
  const services = new Map<string, ServiceInfo>();
  for (const unit of units)
    services.set(unit.name, { ...unit, enabled: isEnabledState(unitFileState(files, unit.name)) });
  for (const [name, state] of files) {
    if (services.has(name) || name.includes('@.')) continue; // templates are not services by themselves
    services.set(name, {
      name,
      description: '',
      load_state: 'not-loaded',
      active_state: 'inactive',
      sub_state: 'dead',
      enabled: isEnabledState(state),
    });
  }
  return [...services.values()].sort(byName).slice(0, 10_000);
}

export interface ServicesOptions {
  runCommand?: RunCommand;
  /** sd_booted(): whether PID 1 is systemd. */
  isSystemdRunning?: () => boolean;
}

export function createServicesHandlers(
  options: ServicesOptions = {},
): Pick<HandlerMap, 'services.list' | 'services.action'> {
  const run = options.runCommand ?? defaultRunCommand;
  const isSystemdRunning = options.isSystemdRunning ?? (() => existsSync('/run/systemd/system'));

  async function systemctl(args: string[]) {
    try {
      return await run('systemctl', args, { timeoutMs: 90_000 });
    } catch (error) {
      if (error instanceof CommandMissingError) throw new AgentError('unsupported', noSystemdMessage);
      throw error;
    }
  }

  async function list(): Promise<AgentRequestResult<'services.list'>> {
    if (!isSystemdRunning()) return { manager: 'none', services: [] };
    let units;
    try {
      units = await systemctl([
        'list-units',
        '--type=service',
        '--all',
        '--no-legend',
        '--no-pager',
        '--plain',
      ]);
    } catch (error) {
      if (error instanceof AgentError && error.code === 'unsupported')
        return { manager: 'none', services: [] };
      throw error;
    }
    if (units.code !== 0)
      throw new AgentError('failed', `systemctl list-units failed: ${units.stderr.trim().slice(0, 500)}`);
    const files = await systemctl([
      'list-unit-files',
      '--type=service',
      '--no-legend',
      '--no-pager',
      '--plain',
    ]);
    return {
      manager: 'systemd',
      services: mergeServices(
        parseListUnits(units.stdout),
        files.code === 0 ? parseListUnitFiles(files.stdout) : new Map<string, string>(),
      ),
    };
  }

  async function action({
    name,
    action: verb,
  }: AgentRequestPayload<'services.action'>): Promise<AgentRequestResult<'services.action'>> {
    if (!isValidServiceName(name))
      throw new AgentError('invalid_argument', `invalid service name: ${JSON.stringify(name.slice(0, 100))}`);
    if (!isSystemdRunning()) throw new AgentError('unsupported', noSystemdMessage);
    const result = await systemctl([verb, name]);
    if (result.code !== 0) {
      const message = result.stderr.trim().slice(0, 1000);
      if (/not (be )?found|not loaded|no such/i.test(message))
        throw new AgentError('not_found', `service ${name} not found`);
      if (/access denied|authentication required|permission/i.test(message))
        throw new AgentError('permission_denied', `${verb} ${name}: ${message}`);
      throw new AgentError(
        'failed',
        `${verb} ${name} failed: ${message || `systemctl exited with ${result.code ?? 'a signal'}`}`,
      );
    }
    const shown = await systemctl(['show', '--property=ActiveState', '--value', name]);
    return { name, action: verb, active_state: shown.stdout.trim().slice(0, 32) || 'unknown' };
  }

  return { 'services.list': list, 'services.action': action };
}
