import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AssetFilterService } from './filters.service.js';

export function filterRoutes(filters: AssetFilterService) {
  return {
    'filters.list': ({ query, ctx }) => filters.list(ctx.principal, pageRequest(query)),
    'filters.create': ({ body, ctx }) => filters.create(ctx, body),
    'filters.update': ({ params, body, ctx }) => filters.update(ctx, params.id, body),
    'filters.delete': ({ params, ctx }) => filters.remove(ctx, params.id),
  } satisfies Handlers;
}
