/**
 * Sign-out and the 401 (transport policy rules 4 and 5): one cleaner per artifact of `signOutArtifacts`, so the
 * type checker refuses a sign-out that forgets one.
 */
import { hub } from '../../api/client';
import { deleteDeviceStore } from './device-store';
import { clearSnapshot } from './fleet-snapshot';
import { unsubscribePush } from './push';
import { signOutArtifacts, unauthorizedArtifacts, type SignOutArtifact } from './transport-policy';

const cleaners: Record<SignOutArtifact, () => Promise<void>> = {
  // The session token is the HttpOnly cookie: the hub ends the session and clears it.
  token: async () => {
    await hub.call('auth.logout').catch(() => undefined);
  },
  cookies: () => {
    // Any cookie a script can see (none of the hub's are), expired.
    for (const cookie of document.cookie.split(';')) {
      const name = cookie.split('=')[0]?.trim();
      if (name) document.cookie = `${name}=; Max-Age=0; path=/`;
    }
    return Promise.resolve();
  },
  'url-cache': () => {
    clearSnapshot();
    for (const key of Object.keys(localStorage)) {
      if (key.startsWith('svc.mobile.')) localStorage.removeItem(key);
    }
    return Promise.resolve();
  },
  // The worker goes first (it would cache again what the page loads next), then its caches.
  'offline-cache': async () => {
    const registration = await navigator.serviceWorker.getRegistration('/m/');
    await registration?.unregister();
    for (const name of await caches.keys()) await caches.delete(name);
  },
  'queued-actions': () => deleteDeviceStore(),
  'push-subscription': () => unsubscribePush(),
};

/** Everything of the session goes; the push subscription first, while the hub still knows who asks. */
export async function signOutDevice(): Promise<void> {
  const order: SignOutArtifact[] = [
    'push-subscription',
    ...signOutArtifacts.filter((a) => a !== 'push-subscription'),
  ];
  for (const artifact of order) await cleaners[artifact]().catch(() => undefined);
  // The settings of this device are the device's, not the session's (spec 2.7); the rest of storage goes.
  const keep = Object.keys(localStorage).filter((k) => k.startsWith('svc.settings.'));
  const kept = keep.map((k) => [k, localStorage.getItem(k)] as const);
  localStorage.clear();
  for (const [k, v] of kept) if (v !== null) localStorage.setItem(k, v);
}

/** A 401: the session's artifacts go (the queue and push subscription stay until sign-out). */
export async function clearAfterUnauthorized(): Promise<void> {
  for (const artifact of unauthorizedArtifacts) {
    if (artifact === 'token') continue; // the hub already refused it; nothing to end
    await cleaners[artifact]().catch(() => undefined);
  }
}
