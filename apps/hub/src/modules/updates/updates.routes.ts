import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { UpdatesService } from './updates.service.js';

export function updatesRoutes(updates: UpdatesService) {
  return {
    'updates.fleet': ({ query, ctx }) => updates.fleet(ctx.principal, query, pageRequest(query)),
    'updates.asset': ({ params, ctx }) => updates.asset(ctx.principal, params.id),
    'updates.refresh': ({ params, ctx }) => updates.refresh(ctx, params.id),
    'updates.runs.create': ({ body, ctx }) => updates.create(ctx, body),
    'updates.runs.list': ({ query, ctx }) => updates.list(ctx.principal, query, pageRequest(query)),
    'updates.runs.get': ({ params, ctx }) => updates.get(ctx.principal, params.id),
    'updates.runs.result': ({ params, ctx }) => updates.result(ctx.principal, params.id, params.asset_id),
    'updates.runs.cancel': ({ params, ctx }) => updates.cancel(ctx, params.id),
  } satisfies Handlers;
}
