import type { Handlers } from '../../http/register-routes.js';
import { pageRequest, toPage } from '../../platform/db/paging.js';
import type { NotificationService } from './notifications.service.js';
import type { PushService } from './push.service.js';

export function notificationRoutes(notifications: NotificationService, push: PushService) {
  return {
    'notifications.list': async ({ query }) => {
      const page = pageRequest(query);
      const all = await notifications.list();
      const start = (page.page - 1) * page.perPage;
      return toPage(all.slice(start, start + page.perPage), all.length, page);
    },
    'notifications.get': ({ params }) => notifications.get(params.id),
    'notifications.create': ({ body, ctx }) => notifications.create(ctx, body),
    'notifications.update': ({ params, body, ctx }) => notifications.update(ctx, params.id, body),
    'notifications.delete': ({ params, ctx }) => notifications.remove(ctx, params.id),
    'notifications.test': ({ params, ctx }) => notifications.sendTest(ctx, params.id),
    'notifications.pushKey': () => push.publicKey(),
    'notifications.pushList': ({ ctx }) => push.list(ctx.principal),
    'notifications.pushSubscribe': ({ body, ctx }) => push.subscribe(ctx, body),
    'notifications.pushUnsubscribe': ({ params, ctx }) => push.unsubscribe(ctx, params.id),
  } satisfies Handlers;
}
