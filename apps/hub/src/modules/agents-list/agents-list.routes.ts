import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AgentsListService } from './agents-list.service.js';

export function agentsListRoutes(agents: AgentsListService): Handlers {
  return {
    'hub.agents': ({ query, ctx }) => agents.list(ctx.principal, pageRequest(query)),
  };
}
