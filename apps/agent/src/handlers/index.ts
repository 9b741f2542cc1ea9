/** All request handlers of one agent, from its platform adapter and the plain-Node areas. */
import type { PlatformAdapter } from '../platform/platform.js';
import { AgentError } from './agent-error.js';
import type { DockerEngine } from '../platform/docker-engine.js';
import { createContainerHandlers } from './containers.js';
import { createCredentialHandlers } from './credential.js';
import { createDiscoveryHandlers } from './discovery.js';
import { runExec, type ExecOptions } from './exec.js';
import { createFilesHandlers } from './files.js';
import type { PathGuard } from './protected-paths.js';
import { listNetworkInterfaces } from './system.js';
import type { HandlerMap } from './types.js';
import { createWolHandlers } from './wol.js';

export interface HandlerDeps {
  platform: PlatformAdapter;
  saveCredential: (credential: string) => Promise<void>;
  exec?: ExecOptions;
  /** What no file operation may touch. */
  guard?: PathGuard;
  /** The container engine client (containers.*), from the `docker_endpoint` setting. */
  engine?: DockerEngine;
  /** This node's port-scan override of the fleet's discovery default (null: none). */
  portScanOverride?: boolean | null;
}

function noEngine(): Promise<never> {
  return Promise.reject(new AgentError('unsupported', 'no container engine is configured on this agent'));
}

export function createHandlers(deps: HandlerDeps): HandlerMap {
  const hasShell = deps.platform.name !== 'windows';
  return {
    ...deps.platform.handlers,
    'exec.run': (payload) =>
      hasShell
        ? runExec(payload, deps.exec)
        : Promise.reject(
            new AgentError('unsupported', `exec is not supported on ${deps.platform.name} by this agent yet`),
          ),
    ...createFilesHandlers(deps.guard ? { guard: deps.guard } : {}),
    'system.network': () => Promise.resolve({ interfaces: listNetworkInterfaces().slice(0, 1024) }),
    ...(deps.engine
      ? createContainerHandlers(deps.engine)
      : {
          'containers.list': noEngine,
          'containers.action': noEngine,
          'containers.logs': noEngine,
          'containers.images': noEngine,
          'containers.volumes': noEngine,
        }),
    ...createDiscoveryHandlers({
      ...(deps.engine ? { engine: deps.engine } : {}),
      portScanOverride: deps.portScanOverride ?? null,
    }),
    ...createWolHandlers(),
    ...createCredentialHandlers(deps.saveCredential),
  };
}
