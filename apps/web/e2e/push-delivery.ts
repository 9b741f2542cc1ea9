/**
 * Browser-test helpers for the phone app's service worker: wait for a condition, hand it a push as a push
 * service would (DevTools' ServiceWorker.deliverPushMessage), read the notifications it shows.
 */
import type { ConsoleHarness } from './harness.js';

/** The probe's first value that is neither undefined nor false, tried every 200 ms until `timeoutMs`. */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined | false>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached in ${String(timeoutMs)} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Delivers `data` to the service worker of the app's scope (`/m/`) on the harness's page. */
export async function deliverPush(t: ConsoleHarness, data: string): Promise<void> {
  const cdp = await t.context.newCDPSession(t.page);
  const registrationId = new Promise<string>((resolve) => {
    cdp.on(
      'ServiceWorker.workerRegistrationUpdated',
      (event: { registrations: { registrationId: string; scopeURL: string }[] }) => {
        const found = event.registrations.find((r) => r.scopeURL === `${t.baseUrl}/m/`);
        if (found) resolve(found.registrationId);
      },
    );
  });
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: t.baseUrl,
    registrationId: await registrationId,
    data,
  });
}

/** The notifications the service worker shows, once it shows any. */
export function shownNotifications(t: ConsoleHarness): Promise<{ title: string; body: string }[]> {
  return until('a notification shown', async () => {
    const list = await t.page.evaluate<{ title: string; body: string }[]>(
      'navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((l) => l.map((n) => ({ title: n.title, body: n.body })))',
    );
    return list.length > 0 ? list : undefined;
  });
}
