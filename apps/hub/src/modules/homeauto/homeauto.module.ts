import type { AuditService } from '../audit/audit.service.js';
import type { ConnectorService } from '../connectors/connectors.service.js';
import { defineModule } from '../module.js';
import { homeautoRoutes } from './homeauto.routes.js';
import { createHomeautoService } from './homeauto.service.js';

/** Home automation (Home Assistant): entities and device service calls of a Home Assistant asset. */
export function createHomeautoModule(deps: { connectors: ConnectorService; audit: AuditService }) {
  const homeauto = createHomeautoService(deps);
  return defineModule({ name: 'homeauto', services: { homeauto }, handlers: homeautoRoutes(homeauto) });
}
