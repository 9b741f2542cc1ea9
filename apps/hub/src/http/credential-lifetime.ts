/**
 * When an API key stops being valid while something it opened is still open (an event stream): revoked or
 * rotated (the `api_key.deleted` event) or past its `expires_at` (a timer). A console session likewise: signed
 * out (`endSession`), past its expiry (a timer), or ended by a change to its user (`user.updated`: a new role
 * or password ends sessions, so each watched session of that user is looked up again). A request is checked
 * once; a stream lives on, so it asks here to learn that its credential ended and closes itself.
 */
import type { Clock } from '../platform/clock.js';
import type { ClusterBus } from '../platform/cluster/cluster-bus.js';
import type { EventBus } from '../platform/event-bus.js';
import type { Principal } from '../access/principal.js';

export type CredentialEnd = 'revoked' | 'expired';

type WatchedKey = NonNullable<Principal['key']>;

interface WatchedSession {
  id: string;
  userId: string | null;
  expiresAt: string | null;
}

export interface CredentialLifetime {
  /**
   * Calls `listener` once, when the key is deleted or expires; the returned function stops watching. A key
   * already past its expiry is reported at once (asynchronously, so the caller can finish its setup).
   */
  onCredentialEnded(key: WatchedKey, listener: (end: CredentialEnd) => void): () => void;
  /** The same for a console session: signed out or ended by a user change (`revoked`), or `expired`. */
  onSessionEnded(session: WatchedSession, listener: (end: CredentialEnd) => void): () => void;
  /** A session was signed out: its watchers are told at once. */
  endSession(sessionId: string): void;
  /** Stops every timer and the bus subscription (hub shutdown). */
  close(): void;
}

/**
 * Calls `onEnd` once when what the principal signed in with ends: its API key, or its console session. A
 * principal with neither (the system) never ends. Returns the stop.
 */
export function watchPrincipal(
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>,
  principal: Principal,
  onEnd: () => void,
): () => void {
  if (principal.key) return credentials.onCredentialEnded(principal.key, onEnd);
  if (principal.sessionId === undefined) return () => undefined;
  return credentials.onSessionEnded(
    { id: principal.sessionId, userId: principal.userId, expiresAt: principal.sessionExpiresAt ?? null },
    onEnd,
  );
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
  /** Whether a session still exists (asked after a change to its user); sessions are only timed without it. */
  isSessionActive?(sessionId: string): Promise<boolean>;
  onError?(error: unknown): void;
  /**
   * The other hub processes (decision 0038): a sign-out here ends the session's streams there too. Events carry
   * key revocations and user changes; a sign-out is not an event, so it travels on its own subject.
   */
  bus?: Pick<ClusterBus, 'publish' | 'subscribe'>;
}

/** Where a process says a console session was signed out. */
const sessionEndedSubject = 'svc.sessions.ended';
const maxSessionIdChars = 200;

interface Watch {
  keyId: string;
  listener: (end: CredentialEnd) => void;
  cancelTimer: () => void;
}

export function createCredentialLifetime(deps: CredentialLifetimeDeps): CredentialLifetime {
  const schedule = deps.schedule ?? realScheduler;
  const byKey = new Map<string, Set<Watch>>();
  // Sessions are watched under `session:<id>`; the user index finds them when the user changes.
  const sessionsOfUser = new Map<string, Set<string>>();

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

  function endAll(watchKey: string, reason: CredentialEnd): void {
    for (const watch of [...(byKey.get(watchKey) ?? [])]) end(watch, reason);
  }

  const unsubscribes = [
    deps.events.subscribe(
      (event) => {
        endAll(event.data.key_id, 'revoked');
      },
      // A key revoked or a user changed on any process closes the streams held by every process.
      { types: ['api_key.deleted'], reach: 'cluster' },
    ),
    deps.bus?.subscribe(sessionEndedSubject, (data) => {
      // From another process: untrusted, so only a session id of a sane size ends anything.
      const id =
        typeof data === 'object' && data !== null ? (data as { session_id?: unknown }).session_id : null;
      if (typeof id === 'string' && id.length > 0 && id.length <= maxSessionIdChars) {
        endAll(`session:${id}`, 'revoked');
      }
    }) ?? (() => undefined),
    deps.events.subscribe(
      (event) => {
        if (!deps.isSessionActive) return;
        for (const sessionId of [...(sessionsOfUser.get(event.data.user_id) ?? [])]) {
          deps.isSessionActive(sessionId).then(
            (active) => {
              if (!active) endAll(`session:${sessionId}`, 'revoked');
            },
            (error: unknown) => deps.onError?.(error),
          );
        }
      },
      { types: ['user.updated'], reach: 'cluster' },
    ),
  ];

  function watch(watchKey: string, expiresAt: string | null, listener: (end: CredentialEnd) => void): Watch {
    const entry: Watch = { keyId: watchKey, listener, cancelTimer: () => undefined };
    const set = byKey.get(watchKey) ?? new Set<Watch>();
    set.add(entry);
    byKey.set(watchKey, set);
    if (expiresAt !== null) armExpiry(entry, new Date(expiresAt).getTime());
    return entry;
  }

  function armExpiry(watch: Watch, expiresAtMs: number): void {
    const left = expiresAtMs - deps.clock.now().getTime();
    watch.cancelTimer = schedule(Math.max(0, Math.min(left, maxDelayMs)), () => {
      if (expiresAtMs - deps.clock.now().getTime() > 0) armExpiry(watch, expiresAtMs);
      else end(watch, 'expired');
    });
  }

  return {
    onCredentialEnded(key, listener) {
      const entry = watch(key.id, key.expiresAt, listener);
      return () => {
        stop(entry);
      };
    },
    onSessionEnded(session, listener) {
      const entry = watch(`session:${session.id}`, session.expiresAt, listener);
      const { userId } = session;
      if (userId !== null) {
        const ids = sessionsOfUser.get(userId) ?? new Set<string>();
        ids.add(session.id);
        sessionsOfUser.set(userId, ids);
      }
      return () => {
        stop(entry);
        if (userId !== null && !byKey.has(`session:${session.id}`)) {
          const ids = sessionsOfUser.get(userId);
          ids?.delete(session.id);
          if (ids?.size === 0) sessionsOfUser.delete(userId);
        }
      };
    },
    endSession(sessionId) {
      endAll(`session:${sessionId}`, 'revoked');
      deps.bus?.publish(sessionEndedSubject, { session_id: sessionId });
    },
    close() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      sessionsOfUser.clear();
      for (const set of byKey.values()) for (const watch of set) watch.cancelTimer();
      byKey.clear();
    },
  };
}
