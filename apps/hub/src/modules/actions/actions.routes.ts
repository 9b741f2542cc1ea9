import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { ActionService } from './actions.service.js';

export function actionRoutes(actions: ActionService) {
  return {
    'actions.create': ({ body, ctx }) => actions.create(ctx, body),
    'actions.list': ({ query, ctx }) => actions.list(ctx.principal, pageRequest(query)),
    'actions.update': ({ params, body, ctx }) => actions.update(ctx, params.id, body),
    'actions.delete': ({ params, ctx }) => actions.remove(ctx, params.id),
    'actions.run': ({ params, ctx }) => actions.run(ctx, params.id),
  } satisfies Handlers;
}
