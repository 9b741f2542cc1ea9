import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { MaintenanceService } from './maintenance.service.js';

export function maintenanceRoutes(maintenance: MaintenanceService) {
  return {
    'maintenance.list': ({ query, ctx }) => maintenance.list(ctx.principal, query, pageRequest(query)),
    'maintenance.active': ({ ctx }) => maintenance.active(ctx.principal),
    'maintenance.get': ({ params, ctx }) => maintenance.get(ctx.principal, params.id),
    'maintenance.create': ({ body, ctx }) => maintenance.create(ctx, body),
    'maintenance.update': ({ params, body, ctx }) => maintenance.update(ctx, params.id, body),
    'maintenance.delete': ({ params, ctx }) => maintenance.remove(ctx, params.id),
  } satisfies Handlers;
}
