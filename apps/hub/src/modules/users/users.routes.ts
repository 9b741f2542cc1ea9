import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { UserService } from './users.service.js';

export function userRoutes(users: UserService): Handlers {
  return {
    'users.list': ({ query }) => users.list(pageRequest(query)),
    'users.create': ({ body, ctx }) => users.create(ctx, body),
    'users.update': ({ params, body, ctx }) => users.update(ctx, params.id, body),
    'auth.changePassword': async ({ body, ctx }) => {
      await users.changeOwnPassword(ctx, body);
      return { changed: true };
    },
  };
}
