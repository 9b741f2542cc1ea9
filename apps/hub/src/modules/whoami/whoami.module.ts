import { defineModule } from '../module.js';
import { whoamiRoutes } from './whoami.routes.js';
import { createWhoamiService, type WhoamiServiceDeps } from './whoami.service.js';

/** The calling credential described: role, scopes, and how many assets it reaches. */
export function createWhoamiModule(deps: WhoamiServiceDeps) {
  const whoami = createWhoamiService(deps);
  return defineModule({ name: 'whoami', services: { whoami }, handlers: whoamiRoutes(whoami) });
}
