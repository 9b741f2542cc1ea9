import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { CheckService } from './checks.service.js';

export function checkRoutes(checks: CheckService) {
  return {
    'checks.create': ({ body, ctx }) => checks.create(ctx, body),
    'checks.list': ({ query, ctx }) =>
      checks.list(ctx.principal, { asset: query.asset, status: query.status }, pageRequest(query)),
    'checks.get': ({ params, ctx }) => checks.get(ctx.principal, params.id),
    'checks.update': ({ params, body, ctx }) => checks.update(ctx, params.id, body),
    'checks.delete': ({ params, ctx }) => checks.remove(ctx, params.id),
    'checks.run': ({ params, ctx }) => checks.runNow(ctx, params.id),
    'checks.results': ({ params, query, ctx }) =>
      checks.results(ctx.principal, params.id, pageRequest(query)),
    'checks.from_suggestion': ({ body, ctx }) => checks.fromSuggestion(ctx, body),
  } satisfies Handlers;
}
