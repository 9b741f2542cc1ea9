import type { ConnectorService } from '../connectors/connectors.service.js';
import { defineModule } from '../module.js';
import { nasRoutes } from './nas.routes.js';
import { createNasService } from './nas.service.js';

/** The storage appliance (TrueNAS): pools and datasets of a NAS asset its connector brought. */
export function createNasModule(deps: { connectors: ConnectorService }) {
  const nas = createNasService(deps);
  return defineModule({ name: 'nas', services: { nas }, handlers: nasRoutes(nas) });
}
