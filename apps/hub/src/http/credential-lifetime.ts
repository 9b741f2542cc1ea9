/**
 * When an API key stops being valid while something it opened is still open (an event stream): revoked or
 * rotated (the `api_key.deleted` event) or past its `expires_at` (a timer). A request is checked once; a
 * stream lives on, so it asks here to learn that its credential ended and closes itself.
 */
import type { Clock } from '../platform/clock.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Principal } from '../access/principal.js';

export type CredentialEnd = 'revoked' | 'expired';

type WatchedKey = NonNullable<Principal['key']>;

export interface CredentialLifetime {
  /**
   * Calls `listener` once, when the key is deleted or expires; the returned function stops watching. A key
   * already past its expiry is reported at once (asynchronously, so the caller can finish its setup).
   */
  onCredentialEnded(key: WatchedKey, listener: (end: CredentialEnd) => void): () => void;
  /** Stops every timer and the bus subscription (hub shutdown). */
  close(): void;
}

/** Runs `run` after `ms`; returns the cancel. Tests pass one they fire by hand. */
export type Scheduler = (ms: number, run: () => void) => () => void;

/** setTimeout's longest delay; a later expiry re-arms when it is reached. */
const maxDelayMs = 2 ** 31 - 1;

const realScheduler: Scheduler = (ms, run) => {
  const timer = setTimeout(run, ms);
  // A watched key must not keep the process alive.
  timer.unref();
  return () => {
    clearTimeout(timer);
  };
};

export interface CredentialLifetimeDeps {
  events: Pick<EventBus, 'subscribe'>;
  clock: Clock;
  schedule?: Scheduler;
}

interface Watch {
  keyId: string;
  listener: (end: CredentialEnd) => void;
  cancelTimer: () => void;
}

export function createCredentialLifetime(deps: CredentialLifetimeDeps): CredentialLifetime {
  const schedule = deps.schedule ?? realScheduler;
  const byKey = new Map<string, Set<Watch>>();

  function stop(watch: Watch): void {
    watch.cancelTimer();
    const set = byKey.get(watch.keyId);
    set?.delete(watch);
    if (set?.size === 0) byKey.delete(watch.keyId);
  }

  function end(watch: Watch, reason: CredentialEnd): void {
    if (!byKey.get(watch.keyId)?.has(watch)) return;
    stop(watch);
    watch.listener(reason);
  }

  const unsubscribe = deps.events.subscribe(
    (event) => {
      for (const watch of [...(byKey.get(event.data.key_id) ?? [])]) end(watch, 'revoked');
    },
    { types: ['api_key.deleted'] },
  );

  function armExpiry(watch: Watch, expiresAtMs: number): void {
    const left = expiresAtMs - deps.clock.now().getTime();
    watch.cancelTimer = schedule(Math.max(0, Math.min(left, maxDelayMs)), () => {
      if (expiresAtMs - deps.clock.now().getTime() > 0) armExpiry(watch, expiresAtMs);
      else end(watch, 'expired');
    });
  }

  return {
    onCredentialEnded(key, listener) {
      const watch: Watch = { keyId: key.id, listener, cancelTimer: () => undefined };
      const set = byKey.get(key.id) ?? new Set<Watch>();
      set.add(watch);
      byKey.set(key.id, set);
      if (key.expiresAt !== null) armExpiry(watch, new Date(key.expiresAt).getTime());
      return () => {
        stop(watch);
      };
    },
    close() {
      unsubscribe();
      for (const set of byKey.values()) for (const watch of set) watch.cancelTimer();
      byKey.clear();
    },
  };
}
