/**
 * The console's one way to the hub: @svc/sdk in session mode (the `svc_session` cookie, same origin, no key).
 * Every 401 tells the listeners, so the console returns to sign-in whatever page made the call.
 */
import { createClient, SvcApiError, type FetchLike } from '@svc/sdk';
import { checkRequestUrl } from '../features/mobile/transport-policy';

type Listener = () => void;
const unauthorizedListeners = new Set<Listener>();

/** The mobile app is the console's `/m/` pages (docs/decisions/0031-mobile-app.md). */
function isMobileApp(): boolean {
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

export const hub = createClient({
  baseUrl: '',
  fetch: policyFetch,
  onUnauthorized: () => {
    for (const listener of unauthorizedListeners) listener();
  },
});

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
