import { defineModule } from '../module.js';
import { execRawRoutes, execRoutes } from './exec.routes.js';
import { createExecService, type ExecServiceDeps } from './exec.service.js';

/** Commands: one asset, or a fan-out by targets or group, through the agent-call path (src/agents/). */
export function createExecModule(deps: ExecServiceDeps) {
  const exec = createExecService(deps);
  return defineModule({
    name: 'exec',
    services: { exec },
    handlers: execRoutes(exec),
    rawHandlers: execRawRoutes(exec),
  });
}
