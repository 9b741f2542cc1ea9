import type { Handlers } from '../../http/register-routes.js';
import type { DesktopCredentialService } from './desktop.service.js';

export function desktopRoutes(desktop: DesktopCredentialService) {
  return {
    'desktop.credentials': ({ params }) => desktop.status(params.id),
    'desktop.setCredentials': ({ params, body, ctx }) => desktop.set(ctx, params.id, body),
    'desktop.clearCredentials': ({ params, ctx }) => desktop.clear(ctx, params.id),
  } satisfies Handlers;
}
