import type { Handlers } from '../../http/register-routes.js';
import type { HubStatusService } from './hub-status.service.js';

export function hubRoutes(hub: HubStatusService): Handlers {
  return { 'hub.status': () => hub.status() };
}
