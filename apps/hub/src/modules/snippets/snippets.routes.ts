import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { SnippetService } from './snippets.service.js';

export function snippetRoutes(snippets: SnippetService) {
  return {
    'snippets.list': ({ query, ctx }) => snippets.list(ctx.principal, pageRequest(query), query.scope),
    'snippets.create': ({ body, ctx }) => snippets.create(ctx, body),
    'snippets.update': ({ params, body, ctx }) => snippets.update(ctx, params.id, body),
    'snippets.delete': ({ params, ctx }) => snippets.remove(ctx, params.id),
  } satisfies Handlers;
}
