import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { SearchService } from './search.service.js';

export function searchRoutes(search: SearchService) {
  return {
    search: ({ query, ctx }) => search.search(ctx.principal, query, pageRequest(query)),
  } satisfies Handlers;
}
