import { defineModule } from '../module.js';
import { discoveryRoutes } from './discovery.routes.js';
import { createDiscoveryService, type DiscoveryServiceDeps } from './discovery.service.js';

/** Service discovery through the agents (and a LAN CIDR when enabled): suggestions a person decides on. */
export function createDiscoveryModule(deps: DiscoveryServiceDeps) {
  const discovery = createDiscoveryService(deps);
  return defineModule({ name: 'discovery', services: { discovery }, handlers: discoveryRoutes(discovery) });
}
