import type { Handlers } from '../../http/register-routes.js';
import type { MetricsService } from './metrics.service.js';

export function metricsRoutes(metrics: MetricsService) {
  return {
    'metrics.history': ({ params, query, ctx }) => metrics.series(ctx.principal, params.id, query),
    'metrics.overview': ({ ctx }) => metrics.overview(ctx.principal),
    'metrics.top': ({ query, ctx }) => metrics.top(ctx.principal, query),
  } satisfies Handlers;
}
