import type { Handlers } from '../../http/register-routes.js';
import type { ExecService } from './exec.service.js';

export function execRoutes(exec: ExecService): Handlers {
  return {
    'exec.single': ({ params, body, ctx }) => exec.runOne(ctx, params.id, body),
    'exec.many': ({ body, ctx }) => exec.runMany(ctx, body),
  };
}
