import { defineModule } from '../module.js';
import { systemRoutes } from './system.routes.js';
import { createSystemService, type SystemServiceDeps } from './system.service.js';

/** An asset's system through its agent: processes, services, network, disks, packages, cron, users, logs. */
export function createSystemModule(deps: SystemServiceDeps) {
  const system = createSystemService(deps);
  return defineModule({ name: 'system', services: { system }, handlers: systemRoutes(system) });
}
