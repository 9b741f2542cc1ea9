import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { GroupService } from './groups.service.js';

export function groupRoutes(groups: GroupService) {
  return {
    'groups.list': ({ query, ctx }) => groups.list(ctx.principal, pageRequest(query)),
    'groups.get': ({ params, ctx }) => groups.get(ctx.principal, params.id),
    'groups.create': ({ body, ctx }) => groups.create(ctx, body),
    'groups.update': ({ params, body, ctx }) => groups.update(ctx, params.id, body),
    'groups.delete': ({ params, ctx }) => groups.remove(ctx, params.id),
  } satisfies Handlers;
}
