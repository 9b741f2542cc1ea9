/**
 * All request handlers of one agent, from its platform adapter and the plain-Node areas. Each area's code is
 * imported on its first request (lazy.ts, decision 0067): an idle agent never loads it.
 */
import type { PlatformAdapter } from '../platform/platform.js';
import { AgentError } from './agent-error.js';
import type { DockerEngine } from '../platform/docker-engine.js';
import { createCredentialHandlers } from './credential.js';
import type { ExecOptions } from './exec.js';
import { lazyHandlers } from './lazy.js';
import type { PathGuard } from './protected-paths.js';
import type { HandlerMap } from './types.js';

export interface HandlerDeps {
  platform: PlatformAdapter;
  saveCredential: (credential: string) => Promise<void>;
  exec?: ExecOptions;
  /** What no file operation may touch. */
  guard?: PathGuard;
  /** The container engine client (containers.*), from the `docker_endpoint` setting; loaded on first use. */
  engine?: () => Promise<DockerEngine>;
  /** This node's port-scan override of the fleet's discovery default (null: none). */
  portScanOverride?: boolean | null;
}

function noEngine(): Promise<never> {
  return Promise.reject(new AgentError('unsupported', 'no container engine is configured on this agent'));
}

const containerTypes = [
  'containers.list',
  'containers.action',
  'containers.logs',
  'containers.images',
  'containers.volumes',
] as const;

export function createHandlers(deps: HandlerDeps): HandlerMap {
  const hasShell = deps.platform.name !== 'windows';
  const engine = deps.engine;
  return {
    ...deps.platform.handlers,
    ...lazyHandlers('exec', ['exec.run'], async () => {
      const { runExec } = await import('./exec.js');
      return {
        'exec.run': (payload) =>
          hasShell
            ? runExec(payload, deps.exec)
            : Promise.reject(
                new AgentError(
                  'unsupported',
                  `exec is not supported on ${deps.platform.name} by this agent yet`,
                ),
              ),
      };
    }),
    ...lazyHandlers(
      'files',
      [
        'files.list',
        'files.read',
        'files.write',
        'files.mkdir',
        'files.rename',
        'files.copy',
        'files.delete',
      ],
      async () => (await import('./files.js')).createFilesHandlers(deps.guard ? { guard: deps.guard } : {}),
    ),
    ...lazyHandlers('network', ['system.network'], async () => {
      const { listNetworkInterfaces } = await import('./system.js');
      return {
        'system.network': () => Promise.resolve({ interfaces: listNetworkInterfaces().slice(0, 1024) }),
      };
    }),
    ...(engine
      ? lazyHandlers('containers', containerTypes, async () =>
          (await import('./containers.js')).createContainerHandlers(await engine()),
        )
      : {
          'containers.list': noEngine,
          'containers.action': noEngine,
          'containers.logs': noEngine,
          'containers.images': noEngine,
          'containers.volumes': noEngine,
        }),
    ...lazyHandlers('discovery', ['discovery.scan'], async () =>
      (await import('./discovery.js')).createDiscoveryHandlers({
        ...(engine ? { engine: await engine() } : {}),
        portScanOverride: deps.portScanOverride ?? null,
      }),
    ),
    // Service checks run from this agent, on its own network (decision 0084).
    ...lazyHandlers('checks', ['check.run'], async () =>
      (await import('./checks.js')).createCheckHandlers({ platform: deps.platform.name }),
    ),
    ...lazyHandlers('wake-on-lan', ['wol.relay'], async () => (await import('./wol.js')).createWolHandlers()),
    ...createCredentialHandlers(deps.saveCredential),
    // The machine's package manager (decision 0082); a reboot after an apply goes through power.reboot, so
    // allow_power_actions decides it as it decides every reboot.
    ...lazyHandlers('updates', ['updates.list', 'updates.simulate', 'updates.apply'], async () =>
      (await import('./updates.js')).createUpdatesHandlers({
        reboot: () => deps.platform.handlers['power.reboot']({}),
      }),
    ),
  };
}
