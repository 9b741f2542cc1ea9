import type { Handlers } from '../../http/register-routes.js';
import type { StatusAggregateService } from './status.service.js';

export function statusRoutes(aggregate: StatusAggregateService) {
  return {
    'status.aggregate': ({ ctx }) => aggregate.aggregate(ctx.principal),
  } satisfies Handlers;
}
