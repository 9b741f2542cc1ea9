import type { RestartResult } from '@svc/protocol';
import type { Handlers } from '../../http/register-routes.js';
import type { ActionContext } from '../access/principal.js';
import type { HubStatusService } from './hub-status.service.js';
import type { StatusAggregateService } from './status-aggregate.service.js';

export function hubRoutes(deps: {
  hub: HubStatusService;
  aggregate: StatusAggregateService;
  restart: (ctx: ActionContext) => Promise<RestartResult>;
}): Handlers {
  return {
    'hub.status': () => deps.hub.status(),
    'status.aggregate': ({ ctx }) => deps.aggregate.aggregate(ctx.principal),
    'settings.restart': ({ ctx }) => deps.restart(ctx),
  };
}
