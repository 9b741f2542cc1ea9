import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AlertService } from '../alerts/alerts.service.js';

export function incidentRoutes(alerts: AlertService) {
  return {
    'incidents.list': ({ query, ctx }) => alerts.listIncidents(ctx.principal, query, pageRequest(query)),
    'incidents.resolve': ({ params, ctx }) => alerts.resolveIncident(ctx, params.id),
  } satisfies Handlers;
}
