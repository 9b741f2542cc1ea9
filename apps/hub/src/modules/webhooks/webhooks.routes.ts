import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { WebhookService } from './webhooks.service.js';

export function webhookRoutes(webhooks: WebhookService) {
  return {
    'webhooks.list': ({ query }) => webhooks.list(pageRequest(query)),
    'webhooks.get': ({ params }) => webhooks.get(params.id),
    'webhooks.create': ({ body, ctx }) => webhooks.create(ctx, body),
    'webhooks.replace': ({ params, body, ctx }) => webhooks.update(ctx, params.id, body),
    'webhooks.update': ({ params, body, ctx }) => webhooks.update(ctx, params.id, body),
    'webhooks.delete': ({ params, ctx }) => webhooks.remove(ctx, params.id),
    'webhooks.test': ({ params, ctx }) => webhooks.sendTest(ctx, params.id),
  } satisfies Handlers;
}
