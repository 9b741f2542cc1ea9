import type { Handlers } from '../../http/register-routes.js';
import type { MetricsService } from './metrics.service.js';

export function metricsRoutes(metrics: MetricsService): Handlers {
  return {
    'system.metrics': ({ params, query, ctx }) => metrics.series(ctx.principal, params.id, query),
    'metrics.overview': ({ ctx }) => metrics.overview(ctx.principal),
  };
}
