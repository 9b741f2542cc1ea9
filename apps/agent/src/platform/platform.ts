/**
 * OS adapters: what differs between operating systems sits behind PlatformAdapter. Linux is implemented;
 * on any other system the OS-specific requests answer `unsupported` with a clear message, and exec, files,
 * network and Wake-on-LAN (plain Node) keep working.
 */
import { readFile } from './fs-async.js';
import os from 'node:os';
import type { Hello } from '@svc/protocol';
import { readLinuxCounters, type Counters } from '../collectors/metrics.js';
import { AgentError } from '../handlers/agent-error.js';
import { lazyHandlers } from '../handlers/lazy.js';
import type { PathGuard } from '../handlers/protected-paths.js';
import type { HandlerMap } from '../handlers/types.js';
import type { RunCommand } from './run-command.js';

export type PlatformName = Hello['platform'];

const osRequestTypes = [
  'processes.list',
  'processes.kill',
  'services.list',
  'services.action',
  'system.disks',
  'system.packages',
  'system.cron',
  'system.users',
  'system.logs',
  'power.reboot',
  'power.shutdown',
] as const;
type OsRequestType = (typeof osRequestTypes)[number];

export interface PlatformAdapter {
  readonly name: PlatformName;
  readonly handlers: Pick<HandlerMap, OsRequestType>;
  /** Raw counters for the metrics collector; null where not implemented. */
  readonly readCounters: (() => Promise<Counters>) | null;
  osRelease(): Promise<string>;
}

export interface PlatformOptions {
  allowPowerActions: () => boolean;
  runCommand?: RunCommand;
  /** Log files may only be read under this directory; /var/log unless a test says otherwise. */
  logRoot?: string;
  /** Paths the logs handler never serves (the hub's secrets on its own host). */
  guard?: PathGuard;
}

export function platformName(nodePlatform: NodeJS.Platform): PlatformName {
  switch (nodePlatform) {
    case 'linux':
      return 'linux';
    case 'win32':
      return 'windows';
    case 'darwin':
      return 'macos';
    case 'freebsd':
      return 'freebsd';
    case 'aix':
    case 'android':
    case 'cygwin':
    case 'haiku':
    case 'netbsd':
    case 'openbsd':
    case 'sunos':
      return 'other';
  }
}

/** PRETTY_NAME from os-release, else the kernel name and release. */
function parseOsRelease(text: string): string | null {
  const match = /^PRETTY_NAME=(?:"([^"]*)"|'([^']*)'|(.*))$/m.exec(text);
  const value = match?.[1] ?? match?.[2] ?? match?.[3];
  return value ? value.trim() : null;
}

function createLinuxAdapter(options: PlatformOptions): PlatformAdapter {
  const runCommand = options.runCommand;
  const commandOption = runCommand ? { runCommand } : {};
  return {
    name: 'linux',
    // Each area is imported on its first request (decision 0067).
    handlers: {
      ...lazyHandlers('processes', ['processes.list', 'processes.kill'], async () =>
        (await import('../handlers/processes.js')).createProcessesHandlers(),
      ),
      ...lazyHandlers('services', ['services.list', 'services.action'], async () =>
        (await import('../handlers/services.js')).createServicesHandlers(commandOption),
      ),
      ...lazyHandlers(
        'system',
        ['system.disks', 'system.packages', 'system.cron', 'system.users'],
        async () => (await import('../handlers/system.js')).createSystemHandlers(commandOption),
      ),
      ...lazyHandlers('logs', ['system.logs'], async () =>
        (await import('../handlers/logs.js')).createLogsHandlers({
          ...commandOption,
          ...(options.logRoot ? { logRoot: options.logRoot } : {}),
          ...(options.guard ? { guard: options.guard } : {}),
        }),
      ),
      ...lazyHandlers('power', ['power.reboot', 'power.shutdown'], async () =>
        (await import('../handlers/power.js')).createPowerHandlers({
          ...commandOption,
          isAllowed: options.allowPowerActions,
        }),
      ),
    },
    readCounters: () => readLinuxCounters(),
    async osRelease() {
      for (const file of ['/etc/os-release', '/usr/lib/os-release']) {
        const name = parseOsRelease(await readFile(file, 'utf8').catch(() => ''));
        if (name) return name.slice(0, 256);
      }
      return `Linux ${os.release()}`.slice(0, 256);
    },
  };
}

/** Every OS-specific request answers `unsupported`, naming the platform. */
function createUnsupportedAdapter(name: PlatformName): PlatformAdapter {
  const refuse = (type: OsRequestType) => () =>
    Promise.reject(new AgentError('unsupported', `${type} is not supported on ${name} by this agent yet`));
  const handlers = Object.fromEntries(osRequestTypes.map((type) => [type, refuse(type)])) as unknown as Pick<
    HandlerMap,
    OsRequestType
  >;
  return {
    name,
    handlers,
    readCounters: null,
    osRelease: () => Promise.resolve(`${os.type()} ${os.release()}`.slice(0, 256)),
  };
}

export function createPlatformAdapter(
  nodePlatform: NodeJS.Platform,
  options: PlatformOptions,
): PlatformAdapter {
  const name = platformName(nodePlatform);
  return name === 'linux' ? createLinuxAdapter(options) : createUnsupportedAdapter(name);
}
