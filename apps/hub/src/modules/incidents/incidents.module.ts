import type { AlertService } from '../alerts/alerts.service.js';
import { defineModule } from '../module.js';
import { incidentRoutes } from './incidents.routes.js';

/** Incidents: the routes over the alerts module's incidents (one service, two areas of the interface). */
export function createIncidentsModule(deps: { alerts: AlertService }) {
  return defineModule({ name: 'incidents', services: {}, handlers: incidentRoutes(deps.alerts) });
}
