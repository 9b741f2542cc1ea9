/**
 * The contracts the console calls before anyone is signed in (who am I, sign-in, its second factor), as the
 * client needs them: method and path. Copied from `routes` of @svc/protocol so that the sign-in page loads
 * without the whole inventory; sign-in-routes.test.ts checks each against it.
 */
import type { RouteName } from '@svc/protocol';
import type { RouteTarget } from '@svc/sdk/client';

export const signInRoutes = {
  'auth.me': { method: 'GET', surface: 'console', path: '/auth/me' },
  'auth.login': { method: 'POST', surface: 'console', path: '/auth/login' },
  'auth.login2fa': { method: 'POST', surface: 'console', path: '/auth/login/2fa' },
} as const satisfies Partial<Record<RouteName, RouteTarget>>;
