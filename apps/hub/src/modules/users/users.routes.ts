import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { UserService } from './users.service.js';

export function userRoutes(users: UserService) {
  return {
    'users.list': ({ query }) => users.list(pageRequest(query)),
    'users.create': ({ body, ctx }) => users.create(ctx, body),
    'users.update': ({ params, body, ctx }) => users.update(ctx, params.id, body),
  } satisfies Handlers;
}
