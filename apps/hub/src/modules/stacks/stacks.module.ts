import type { ConnectorService } from '../connectors/connectors.service.js';
import { defineModule } from '../module.js';
import { stacksRoutes } from './stacks.routes.js';
import { createStacksService } from './stacks.service.js';

/** The stack manager (Portainer): the stacks of an endpoint asset its connector brought. */
export function createStacksModule(deps: { connectors: ConnectorService }) {
  const stacks = createStacksService(deps);
  return defineModule({ name: 'stacks', services: { stacks }, handlers: stacksRoutes(stacks) });
}
