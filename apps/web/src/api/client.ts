/**
 * The console's one way to the hub: @svc/sdk in session mode (the `svc_session` cookie, same origin, no key).
 * Every 401 tells the listeners, so the console returns to sign-in whatever page made the call.
 *
 * The client comes from `@svc/sdk/client`, without the route inventory: the sign-in page's few contracts are in
 * `sign-in-routes.ts`, and every other call finds its route in `routes`, a chunk of its own loaded on the first
 * such call (and prefetched once the sign-in page or the console shows). The inventory, every contract and its
 * schemas, was a quarter of the sign-in page's JavaScript (docs/decisions/0070-console-code-split.md).
 */
import type { RouteName } from '@svc/protocol';
import { createRouteClient, SvcApiError, type FetchLike, type RouteTarget } from '@svc/sdk/client';
import { checkRequestUrl } from '../features/mobile/transport-policy';
import { signInRoutes } from './sign-in-routes';

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** The mobile app is the console's `/m/` pages (docs/decisions/0031-mobile-app.md). */
export function isMobileApp(): boolean {
  const path = window.location.pathname;
  return path === '/m' || path.startsWith('/m/');
}

/**
 * Every request of the mobile app passes its transport policy (interface 5.6) first: to the selected hub, the
 * origin that served the app, itself a valid hub origin (https, or http only on loopback). The desktop
 * console keeps working on a plain-http LAN hub, which the mobile policy refuses.
 */
const policyFetch: FetchLike = async (url, init) => {
  if (isMobileApp()) {
    const checked = checkRequestUrl(url, window.location.origin);
    if (!checked.ok) throw new Error(`refused by the mobile transport policy: ${checked.problem}`);
  }
  return fetch(url, init);
};

let inventory: Promise<Record<RouteName, RouteTarget>> | undefined;

/** Loads the route inventory's chunk (once); called ahead of need so the first call after sign-in does not wait. */
export function loadRoutes(): Promise<Record<RouteName, RouteTarget>> {
  inventory ??= import('@svc/protocol').then(
    (protocol) => protocol.routes,
    (error: unknown) => {
      // Not kept: the next call tries the chunk again (a network blip must not break every later call).
      inventory = undefined;
      throw error;
    },
  );
  return inventory;
}

function routeOf(name: RouteName): RouteTarget | Promise<RouteTarget> {
  const known: RouteTarget | undefined = (signInRoutes as Partial<Record<RouteName, RouteTarget>>)[name];
  return known ?? loadRoutes().then((routes) => routes[name]);
}

export const hub = createRouteClient(
  {
    baseUrl: '',
    fetch: policyFetch,
    onUnauthorized: () => {
      for (const listener of unauthorizedListeners) listener();
    },
  },
  routeOf,
);

/** Runs `listener` on every 401 the hub answers; returns the unsubscribe. */
export function onUnauthorized(listener: Listener): () => void {
  unauthorizedListeners.add(listener);
  return () => unauthorizedListeners.delete(listener);
}

/** The hub's message as it wrote it, or what went wrong before the hub could answer. */
export function errorText(error: unknown): string {
  if (error instanceof SvcApiError) return error.hubMessage;
  if (error instanceof Error) return error.message;
  return String(error);
}

export { SvcApiError };
