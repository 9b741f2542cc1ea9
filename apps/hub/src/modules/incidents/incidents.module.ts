import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AlertService } from '../alerts/alerts.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { incidentRawRoutes, incidentRoutes } from './incidents.routes.js';
import { createReviewService } from './reviews.service.js';

/**
 * Incidents: the routes over the alerts module's incidents (one service, two areas of the interface), and
 * their reviews (decision 0080), kept here.
 */
export function createIncidentsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  alerts: AlertService;
}) {
  const reviews = createReviewService(deps);
  return defineModule({
    name: 'incidents',
    services: { reviews },
    handlers: incidentRoutes(deps.alerts, reviews),
    rawHandlers: incidentRawRoutes(reviews),
  });
}
