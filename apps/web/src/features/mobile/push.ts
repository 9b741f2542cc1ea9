/**
 * Push alerts on this device: the browser's PushManager subscribed with the hub's VAPID key, and the
 * subscription given to the hub with the routing of this device's settings (decision 0032).
 */
import { hub } from '../../api/client';
import { deviceId } from './device';
import { clockOf, type MobileSettings } from './settings';

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
  const bytes = new Uint8Array(new ArrayBuffer(text.length));
  for (let i = 0; i < text.length; i += 1) bytes[i] = text.charCodeAt(i);
  return bytes;
}

function base64url(buffer: ArrayBuffer | null): string {
  if (!buffer) return '';
  let text = '';
  for (const byte of new Uint8Array(buffer)) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

async function registration(): Promise<ServiceWorkerRegistration> {
  const found = await navigator.serviceWorker.getRegistration('/m/');
  if (!found) throw new Error('the app is not installed (no service worker yet): reload and try again');
  return found;
}

async function currentPushSubscription(): Promise<PushSubscription | null> {
  if (!('serviceWorker' in navigator)) return null;
  const found = await navigator.serviceWorker.getRegistration('/m/');
  return (await found?.pushManager.getSubscription()) ?? null;
}

/**
 * Subscribes this device (or refreshes its routing). `endpointOverride` is for the browser tests, whose
 * chromium reaches no real push service: the subscription then names the test's push service (decision 0032).
 */
export async function subscribePush(
  settings: MobileSettings,
  endpointOverride?: { endpoint: string; p256dh: string; auth: string },
): Promise<void> {
  const { data } = await hub.call('notifications.pushKey');
  let endpoint: string;
  let p256dh: string;
  let auth: string;
  if (endpointOverride) {
    ({ endpoint, p256dh, auth } = endpointOverride);
  } else {
    const sw = await registration();
    const subscription =
      (await sw.pushManager.getSubscription()) ??
      (await sw.pushManager.subscribe({
        userVisibleOnly: true,
        applicationServerKey: keyBytes(data.public_key),
      }));
    endpoint = subscription.endpoint;
    p256dh = base64url(subscription.getKey('p256dh'));
    auth = base64url(subscription.getKey('auth'));
  }
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
  await hub.call('notifications.pushSubscribe', {
    body: {
      device_id: deviceId(),
      endpoint,
      keys: { p256dh, auth },
      min_severity: settings.pushMinimumSeverity,
      quiet_hours: settings.pushQuietHoursEnabled
        ? {
            start: clockOf(settings.pushQuietHoursStartMinutes),
            end: clockOf(settings.pushQuietHoursEndMinutes),
            time_zone: timeZone,
          }
        : null,
      digest_window_s: settings.pushDigestWindowSeconds,
    },
  });
}

/** Removes this device's subscription at the hub (when signed in) and in the browser. */
export async function unsubscribePush(): Promise<void> {
  try {
    const { data } = await hub.call('notifications.pushList');
    const mine = data.filter((s) => s.device_id === deviceId());
    for (const s of mine) await hub.call('notifications.pushUnsubscribe', { params: { id: s.id } });
  } catch {
    // Signed out already or offline: the browser side still goes; the hub drops it at its next 410.
  }
  const subscription = await currentPushSubscription();
  await subscription?.unsubscribe();
}
