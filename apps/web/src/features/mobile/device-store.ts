/**
 * The app's IndexedDB (`svc-mobile`): the offline action queue and a few values the service worker reads (the
 * live-activity settings: a service worker has no localStorage). Device-local, never synced.
 */
const dbName = 'svc-mobile';
const version = 1;
export type StoreName = 'queue' | 'kv';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(dbName, version);
    request.onupgradeneeded = () => {
      const db = request.result;
      if (!db.objectStoreNames.contains('queue')) db.createObjectStore('queue', { keyPath: 'key' });
      if (!db.objectStoreNames.contains('kv')) db.createObjectStore('kv');
    };
    request.onsuccess = () => {
      resolve(request.result);
    };
    request.onerror = () => {
      reject(request.error ?? new Error('IndexedDB did not open'));
    };
  });
}

async function run<T>(
  store: StoreName,
  mode: IDBTransactionMode,
  work: (s: IDBObjectStore) => IDBRequest<T>,
): Promise<T> {
  const db = await open();
  try {
    return await new Promise<T>((resolve, reject) => {
      const request = work(db.transaction(store, mode).objectStore(store));
      request.onsuccess = () => {
        resolve(request.result);
      };
      request.onerror = () => {
        reject(request.error ?? new Error('IndexedDB request failed'));
      };
    });
  } finally {
    db.close();
  }
}

export function readAll<T>(store: StoreName): Promise<T[]> {
  return run(store, 'readonly', (s) => s.getAll() as IDBRequest<T[]>);
}

export async function put(store: StoreName, value: unknown, key?: string): Promise<void> {
  await run(store, 'readwrite', (s) => (key === undefined ? s.put(value) : s.put(value, key)));
}

/** Removes the whole database (sign-out). */
export function deleteDeviceStore(): Promise<void> {
  return new Promise((resolve) => {
    const request = indexedDB.deleteDatabase(dbName);
    request.onsuccess = () => {
      resolve();
    };
    request.onerror = () => {
      resolve();
    };
    request.onblocked = () => {
      resolve();
    };
  });
}
