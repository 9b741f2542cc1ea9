import type { Handlers } from '../../http/register-routes.js';
import type { WhoamiService } from './whoami.service.js';

export function whoamiRoutes(whoami: WhoamiService) {
  return { whoami: ({ ctx }) => whoami.describe(ctx.principal) } satisfies Handlers;
}
