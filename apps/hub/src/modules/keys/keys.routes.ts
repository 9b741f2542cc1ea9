import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { ApiKeyService } from './keys.service.js';

export function keyRoutes(keys: ApiKeyService) {
  return {
    'keys.create': ({ body, ctx }) => keys.create(ctx, body),
    'keys.list': ({ query }) => keys.list(pageRequest(query)),
    'keys.get': ({ params }) => keys.get(params.id),
    'keys.update': ({ params, body, ctx }) => keys.update(ctx, params.id, body),
    'keys.revoke': ({ params, ctx }) => keys.revoke(ctx, params.id),
  } satisfies Handlers;
}
