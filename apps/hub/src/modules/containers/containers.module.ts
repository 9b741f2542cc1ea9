import { defineModule } from '../module.js';
import { containersRoutes } from './containers.routes.js';
import { createContainersService, type ContainersServiceDeps } from './containers.service.js';

/** Containers, images, volumes and compose stacks of a host through its agent's container engine. */
export function createContainersModule(deps: ContainersServiceDeps) {
  const containers = createContainersService(deps);
  return defineModule({
    name: 'containers',
    services: { containers },
    handlers: containersRoutes(containers),
  });
}
