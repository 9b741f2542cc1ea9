import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { ConnectorService } from './connectors.service.js';

export function connectorRoutes(connectors: ConnectorService) {
  return {
    'connectors.list': ({ query }) => connectors.list(pageRequest(query)),
    'connectors.get': ({ params }) => connectors.get(params.id),
    'connectors.create': ({ body, ctx }) => connectors.create(ctx, body),
    'connectors.update': ({ params, body, ctx }) => connectors.update(ctx, params.id, body),
    'connectors.delete': ({ params, ctx }) => connectors.remove(ctx, params.id),
    'connectors.test': ({ params, ctx }) => connectors.test(ctx, params.id),
  } satisfies Handlers;
}
