import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { UserService } from './users.service.js';

export function userRoutes(users: UserService) {
  return {
    'users.list': ({ query }) => users.list(pageRequest(query)),
    'users.create': ({ body, ctx }) => users.create(ctx, body),
    'users.update': ({ params, body, ctx }) => users.update(ctx, params.id, body),
    'users.disable': ({ params, ctx }) => users.disable(ctx, params.id),
    'users.enable': ({ params, ctx }) => users.enable(ctx, params.id),
    'users.delete': ({ params, query, ctx }) => users.remove(ctx, params.id, query),
  } satisfies Handlers;
}
