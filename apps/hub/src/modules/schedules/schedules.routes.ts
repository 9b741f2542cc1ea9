import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { ScheduleService } from './schedules.service.js';

export function scheduleRoutes(schedules: ScheduleService) {
  return {
    'schedules.create': ({ body, ctx }) => schedules.create(ctx, body),
    'schedules.list': ({ query, ctx }) => schedules.list(ctx.principal, pageRequest(query)),
    'schedules.update': ({ params, body, ctx }) => schedules.update(ctx, params.id, body),
    'schedules.delete': ({ params, ctx }) => schedules.remove(ctx, params.id),
    'schedules.runs': ({ params, query, ctx }) =>
      schedules.runs(ctx.principal, params.id, pageRequest(query)),
  } satisfies Handlers;
}
