import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { HomeautoService } from './homeauto.service.js';

export function homeautoRoutes(homeauto: HomeautoService) {
  return {
    'homeauto.entities': ({ params, query, ctx }) =>
      homeauto.entities(ctx.principal, params.id, { domain: query.domain }, pageRequest(query)),
    'homeauto.entity': ({ params, ctx }) => homeauto.entity(ctx.principal, params.id, params.entity_id),
    'homeauto.callService': ({ params, body, ctx }) =>
      homeauto.callService(ctx, params.id, params.domain, params.service, body),
  } satisfies Handlers;
}
