import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { DiscoveryService } from './discovery.service.js';

export function discoveryRoutes(discovery: DiscoveryService) {
  return {
    'discovery.run': ({ body, ctx }) => discovery.run(ctx, body),
    'discovery.suggestions': ({ query }) =>
      discovery.list({ status: query.status, kind: query.kind }, pageRequest(query)),
    'discovery.accept': ({ params, body, ctx }) => discovery.accept(ctx, params.id, body),
    'discovery.dismiss': ({ params, ctx }) => discovery.dismiss(ctx, params.id),
  } satisfies Handlers;
}
