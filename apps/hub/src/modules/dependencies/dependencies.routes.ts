import type { Handlers } from '../../http/register-routes.js';
import type { DependencyService } from './dependencies.service.js';

export function dependencyRoutes(dependencies: DependencyService) {
  return {
    dependencies: ({ ctx }) => dependencies.graph(ctx.principal),
    'dependencies.createLink': ({ body, ctx }) => dependencies.createLink(ctx, body),
    'dependencies.deleteLink': ({ params, ctx }) => dependencies.deleteLink(ctx, params.id),
    'dependencies.blastRadius': ({ params, query, ctx }) =>
      dependencies.blastRadius(ctx.principal, params.id, query.max_depth),
  } satisfies Handlers;
}
