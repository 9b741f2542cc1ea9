import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { BookmarkService } from './bookmarks.service.js';

export function bookmarkRoutes(bookmarks: BookmarkService) {
  return {
    'bookmarks.list': ({ query, ctx }) => bookmarks.list(ctx.principal, pageRequest(query)),
    'bookmarks.create': ({ body, ctx }) => bookmarks.create(ctx, body),
    'bookmarks.update': ({ params, body, ctx }) => bookmarks.update(ctx, params.id, body),
    'bookmarks.delete': ({ params, ctx }) => bookmarks.remove(ctx, params.id),
  } satisfies Handlers;
}
