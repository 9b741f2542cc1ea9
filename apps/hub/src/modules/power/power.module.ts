import { defineModule } from '../module.js';
import { powerRoutes } from './power.routes.js';
import { createPowerService, type PowerServiceDeps } from './power.service.js';

/** Reboot and shutdown through the agent; Wake-on-LAN from the hub or a relaying agent on the asset's LAN. */
export function createPowerModule(deps: PowerServiceDeps) {
  const power = createPowerService(deps);
  return defineModule({ name: 'power', services: { power }, handlers: powerRoutes(power) });
}
