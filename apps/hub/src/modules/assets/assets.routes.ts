import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AssetService } from './assets.service.js';

export function assetRoutes(assets: AssetService) {
  return {
    'assets.list': ({ query, ctx }) => assets.list(ctx.principal, query, pageRequest(query)),
    'assets.get': ({ params, ctx }) => assets.get(ctx.principal, params.id),
    'assets.create': ({ body, ctx }) => assets.create(ctx, body),
    'assets.update': ({ params, body, ctx }) => assets.update(ctx, params.id, body),
    'assets.delete': ({ params, ctx }) => assets.remove(ctx, params.id),
  } satisfies Handlers;
}
