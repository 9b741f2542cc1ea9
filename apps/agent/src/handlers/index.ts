/** All request handlers of one agent, from its platform adapter and the plain-Node areas. */
import type { PlatformAdapter } from '../platform/platform.js';
import { AgentError } from './agent-error.js';
import { createCredentialHandlers } from './credential.js';
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
    ...createWolHandlers(),
    ...createCredentialHandlers(deps.saveCredential),
  };
}
