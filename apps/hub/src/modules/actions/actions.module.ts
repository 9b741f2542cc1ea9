import { defineModule } from '../module.js';
import { actionRoutes } from './actions.routes.js';
import { createActionService, type ActionServiceDeps } from './actions.service.js';

/** Saved actions: named commands on targets or a group, run on demand through the exec service. */
export function createActionsModule(deps: ActionServiceDeps) {
  const actions = createActionService(deps);
  return defineModule({ name: 'actions', services: { actions }, handlers: actionRoutes(actions) });
}
