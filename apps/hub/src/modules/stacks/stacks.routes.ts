import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { StacksService } from './stacks.service.js';

export function stacksRoutes(stacks: StacksService) {
  return {
    'stacks.list': ({ params, query, ctx }) => stacks.list(ctx.principal, params.id, pageRequest(query)),
  } satisfies Handlers;
}
