/**
 * The mobile app's service worker (scope `/m/`; docs/decisions/0031-mobile-app.md), built by scripts/build.js
 * into dist/sw.js. It keeps the app's shell for offline use — the `/m/` page, the build's files the page
 * loaded, the manifest and icons — and shows push messages: alert digests as notifications, and each open
 * incident as one persistent notification (the "live activity", decision 0033), closed when it resolves.
 * API answers are never cached here (the app keeps its own last fleet state, cleared at sign-out).
 *
 * Same-origin files only, no inline script, no eval: it runs under the hub's Content-Security-Policy.
 */

import { notificationText, readPushTexts, type PushMessage } from './push-texts';

// The few service-worker types used here (the console's TypeScript program has the DOM's, not the worker's).
interface ExtendableEvent extends Event {
  waitUntil(work: Promise<unknown>): void;
}
interface FetchEvent extends ExtendableEvent {
  request: Request;
  respondWith(response: Promise<Response>): void;
}
interface PushEvent extends ExtendableEvent {
  data: { text(): string } | null;
}
interface NotificationEvent extends ExtendableEvent {
  notification: Notification;
}
interface MessageEventLike extends ExtendableEvent {
  data: unknown;
}
interface WorkerClients {
  claim(): Promise<void>;
  matchAll(options: { type: 'window' }): Promise<readonly { url: string; focus(): Promise<unknown> }[]>;
  openWindow(url: string): Promise<unknown>;
}
interface WorkerScope {
  addEventListener(type: 'install' | 'activate', listener: (event: ExtendableEvent) => void): void;
  addEventListener(type: 'fetch', listener: (event: FetchEvent) => void): void;
  addEventListener(type: 'push', listener: (event: PushEvent) => void): void;
  addEventListener(type: 'notificationclick', listener: (event: NotificationEvent) => void): void;
  addEventListener(type: 'message', listener: (event: MessageEventLike) => void): void;
  skipWaiting(): Promise<void>;
  clients: WorkerClients;
  registration: ServiceWorkerRegistration;
  location: Location;
}

const scope = self as unknown as WorkerScope;
const shellCache = 'svc-mobile-shell-v1';
/** Every icon the manifest lists is here: offline, the browser still asks for them (the apple-touch one too). */
const shellFiles = [
  '/m/',
  '/m/manifest.webmanifest',
  '/m/icons/icon-192.png',
  '/m/icons/icon-512.png',
  '/m/icons/icon-maskable-512.png',
  '/m/icons/apple-touch-icon-180.png',
  '/favicon.svg',
];

function sameOrigin(url: string): URL | null {
  const parsed = new URL(url, scope.location.origin);
  return parsed.origin === scope.location.origin ? parsed : null;
}

/** The shell's page and the build's files it names (its entry script, styles, preloads). */
async function cacheShell(): Promise<void> {
  const cache = await caches.open(shellCache);
  await cache.addAll(shellFiles);
  const page = await cache.match('/m/');
  const html = page ? await page.text() : '';
  const files = [...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1] ?? '');
  await cache.addAll(files.filter((f) => f !== ''));
}

scope.addEventListener('install', (event) => {
  event.waitUntil(cacheShell().then(() => scope.skipWaiting()));
});

scope.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((n) => n !== shellCache).map((n) => caches.delete(n))))
      .then(() => scope.clients.claim()),
  );
});

/** The page hands over the lazy chunks it loaded, so the offline shell has every screen. */
scope.addEventListener('message', (event) => {
  const data = event.data as { type?: unknown; files?: unknown } | null;
  if (data?.type !== 'cache-files' || !Array.isArray(data.files)) return;
  const files = data.files
    .filter((f): f is string => typeof f === 'string')
    .map((f) => sameOrigin(f))
    .filter((u): u is URL => u !== null && u.pathname.startsWith('/assets/'))
    .map((u) => u.pathname)
    .slice(0, 200);
  event.waitUntil(
    caches.has(shellCache).then(async (present) => {
      if (present) await (await caches.open(shellCache)).addAll(files);
    }),
  );
});

/**
 * Adds to the shell's cache only while it exists: sign-out deletes it (and unregisters this worker, which still
 * serves the open page until it closes), and nothing may be cached again behind it.
 */
async function keep(key: string | Request, answer: Response): Promise<void> {
  if (!(await caches.has(shellCache))) return;
  await (await caches.open(shellCache)).put(key, answer);
}

async function networkFirstPage(request: Request): Promise<Response> {
  try {
    const answer = await fetch(request);
    if (answer.ok) await keep('/m/', answer.clone());
    return answer;
  } catch {
    return (await caches.match('/m/')) ?? Response.error();
  }
}

async function cacheFirst(request: Request): Promise<Response> {
  const cached = await caches.match(request);
  if (cached) return cached;
  const answer = await fetch(request);
  if (answer.ok) await keep(request, answer.clone());
  return answer;
}

scope.addEventListener('fetch', (event) => {
  const { request } = event;
  if (request.method !== 'GET') return;
  const url = sameOrigin(request.url);
  if (!url || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate' && url.pathname.startsWith('/m')) {
    event.respondWith(networkFirstPage(request));
  } else if (url.pathname.startsWith('/assets/') || shellFiles.includes(url.pathname)) {
    event.respondWith(cacheFirst(request));
  }
});

interface SharedSettings {
  liveActivitiesEnabled: boolean;
  liveActivitiesAutoStartHigh: boolean;
  liveActivitiesShowFullDetails: boolean;
}

const defaults: SharedSettings = {
  liveActivitiesEnabled: true,
  liveActivitiesAutoStartHigh: false,
  liveActivitiesShowFullDetails: false,
};

/** A value the app copied into IndexedDB's `kv` store (device.ts), or undefined. */
function readShared(key: 'settings' | 'pushTexts'): Promise<unknown> {
  return new Promise((resolve) => {
    const open = indexedDB.open('svc-mobile', 1);
    open.onupgradeneeded = () => {
      open.result.createObjectStore('queue', { keyPath: 'key' });
      open.result.createObjectStore('kv');
    };
    open.onerror = () => {
      resolve(undefined);
    };
    open.onsuccess = () => {
      const db = open.result;
      const get = db.transaction('kv', 'readonly').objectStore('kv').get(key);
      get.onsuccess = () => {
        db.close();
        resolve(get.result);
      };
      get.onerror = () => {
        db.close();
        resolve(undefined);
      };
    };
  });
}

/** The settings the app copied; the defaults when there are none. */
async function readSettings(): Promise<SharedSettings> {
  return { ...defaults, ...((await readShared('settings')) as Partial<SharedSettings> | undefined) };
}

async function show(message: PushMessage): Promise<void> {
  const [settings, texts] = await Promise.all([readSettings(), readShared('pushTexts').then(readPushTexts)]);
  const registration = scope.registration;
  const { title, body } = notificationText(message, texts, settings.liveActivitiesShowFullDetails);
  if (message.kind === 'incident' && message.incident) {
    const tag = `incident-${message.incident.id}`;
    if (message.incident.status === 'resolved') {
      for (const n of await registration.getNotifications({ tag })) n.close();
      return;
    }
    const persistent =
      settings.liveActivitiesEnabled &&
      (message.severity === 'critical' ||
        (message.severity === 'warning' && settings.liveActivitiesAutoStartHigh));
    await registration.showNotification(title, {
      tag,
      requireInteraction: persistent,
      body,
      data: { url: '/m/alerts', kind: 'incident' },
    });
    return;
  }
  await registration.showNotification(title, {
    tag: 'alerts',
    body,
    data: { url: '/m/alerts', kind: 'alerts' },
  });
}

scope.addEventListener('push', (event) => {
  let message: PushMessage;
  try {
    message = JSON.parse(event.data?.text() ?? '') as PushMessage;
  } catch {
    message = { kind: 'alerts', title: 'svc hub', severity: 'info', alerts: [], more: 0 };
  }
  event.waitUntil(show(message));
});

scope.addEventListener('notificationclick', (event) => {
  const data = event.notification.data as { url?: unknown } | null;
  const target = typeof data?.url === 'string' && data.url.startsWith('/m') ? data.url : '/m/';
  event.notification.close();
  event.waitUntil(
    scope.clients.matchAll({ type: 'window' }).then(async (windows) => {
      const open = windows.find((w) => new URL(w.url).pathname.startsWith('/m'));
      if (open) await open.focus();
      else await scope.clients.openWindow(target);
    }),
  );
});
