import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { NasService } from './nas.service.js';

export function nasRoutes(nas: NasService) {
  return {
    'nas.pools': ({ params, query, ctx }) => nas.pools(ctx.principal, params.id, pageRequest(query)),
    'nas.datasets': ({ params, query, ctx }) =>
      nas.datasets(ctx.principal, params.id, { pool: query.pool }, pageRequest(query)),
  } satisfies Handlers;
}
