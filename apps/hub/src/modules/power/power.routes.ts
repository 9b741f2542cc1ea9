import type { Handlers } from '../../http/register-routes.js';
import type { PowerService } from './power.service.js';

export function powerRoutes(power: PowerService) {
  return {
    'power.reboot': ({ params, ctx }) => power.reboot(ctx, params.id),
    'power.shutdown': ({ params, ctx }) => power.shutdown(ctx, params.id),
    'power.wake': ({ params, ctx }) => power.wake(ctx, params.id),
  } satisfies Handlers;
}
