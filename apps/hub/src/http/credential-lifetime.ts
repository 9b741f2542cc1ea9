/**
 * When an API key stops being valid while something it opened is still open (an event stream): revoked or
 * rotated (the `api_key.deleted` event) or past its `expires_at` (a timer). A console session likewise: signed
 * out (`endSession`), past its expiry (a timer), or ended by a change to its user (`user.updated`: a new role
 * or password ends sessions, so each watched session of that user is looked up again). A request is checked
 * once; a stream lives on, so it asks here to learn that its credential ended and closes itself.
 *
 * A key that lives on but changes (`PATCH /keys/{id}`: scopes, allowed assets, expiry) is read again from the
 * database and the new principal handed to what it holds open, which checks itself again with it: narrows what
 * it sends, or closes (decision 0049). The change is applied here at once on the process that made it
 * (`keyChanged`), and on every other process when its `api_key.updated` event arrives.
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

/** Told the principal a live connection holds now that its key changed; it checks itself again with it. */
export type PrincipalChanged = (next: Principal) => void;

export interface CredentialLifetime {
  /**
   * Calls `listener` once, when the key is deleted or expires; `onChanged` each time it changes and lives on.
   * The returned function stops watching. A key already past its expiry is reported at once (asynchronously,
   * so the caller can finish its setup).
   */
  onCredentialEnded(
    key: WatchedKey,
    listener: (end: CredentialEnd) => void,
    onChanged?: PrincipalChanged,
  ): () => void;
  /** The same for a console session: signed out or ended by a user change (`revoked`), or `expired`. */
  onSessionEnded(session: WatchedSession, listener: (end: CredentialEnd) => void): () => void;
  /** A session was signed out: its watchers are told at once. */
  endSession(sessionId: string): void;
  /** A key changed through this process (its new principal, read after the commit): watchers told at once. */
  keyChanged(principal: Principal): void;
  /** Stops every timer and the bus subscription (hub shutdown). */
  close(): void;
}

/**
 * Calls `onEnd` once when what the principal signed in with ends: its API key, or its console session; and
 * `onChange` with the key's new principal when the key changes (a session's grant changes only by ending: a
 * new role ends the user's sessions). A principal with neither (the system) never ends. Returns the stop.
 */
export function watchPrincipal(
  credentials: Pick<CredentialLifetime, 'onCredentialEnded' | 'onSessionEnded'>,
  principal: Principal,
  onEnd: () => void,
  onChange?: PrincipalChanged,
): () => void {
  if (principal.key) return credentials.onCredentialEnded(principal.key, onEnd, onChange);
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
  /**
   * A key's principal as the database has it now, null when it is gone (asked after `api_key.updated` from any
   * process); without it a key's changes reach only the process that made them (`keyChanged`).
   */
  resolveKey?(keyId: string): Promise<Principal | null>;
  onError?(error: unknown): void;
  /**
   * The other hub processes (decision 0038): a sign-out here ends the session's streams there too. Events carry
   * key revocations and user changes; a sign-out is not an event, so it travels on its own subject. What was
   * published while the bus was down never comes: when it reconnects, every watched key and session is read
   * again from the database (decision 0054).
   */
  bus?: Pick<ClusterBus, 'publish' | 'subscribe'> & Partial<Pick<ClusterBus, 'onReconnected'>>;
}

/** Where a process says a console session was signed out. */
const sessionEndedSubject = 'svc.sessions.ended';
const maxSessionIdChars = 200;
/** Sessions are watched under `session:<id>`, keys under their id. */
const sessionPrefix = 'session:';

interface Watch {
  keyId: string;
  listener: (end: CredentialEnd) => void;
  changed: PrincipalChanged | null;
  /** The expiry its timer is armed for (a key's may change). */
  expiresAt: string | null;
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

  /**
   * Moves on each change of a watched key: a read of the key that a later change overtook is dropped, so an
   * older grant never lands after a newer one.
   */
  const keyVersions = new Map<string, number>();
  const bumpVersion = (keyId: string): number => {
    const version = (keyVersions.get(keyId) ?? 0) + 1;
    keyVersions.set(keyId, version);
    return version;
  };

  /** Hands every watch of the key its new principal (its expiry re-armed when that moved). */
  function applyChange(next: Principal): void {
    const key = next.key;
    if (!key) return;
    for (const watch of [...(byKey.get(key.id) ?? [])]) {
      if (!byKey.get(key.id)?.has(watch)) continue;
      if (watch.expiresAt !== key.expiresAt) {
        watch.cancelTimer();
        watch.cancelTimer = () => undefined;
        watch.expiresAt = key.expiresAt;
        if (key.expiresAt !== null) armExpiry(watch, new Date(key.expiresAt).getTime());
      }
      watch.changed?.(next);
    }
  }

  /** Another process (or this one) changed the key: read it again, then end or hand on what it is now. */
  function recheckKey(keyId: string): void {
    if (!deps.resolveKey || !byKey.has(keyId)) return;
    const version = bumpVersion(keyId);
    deps.resolveKey(keyId).then(
      (next) => {
        if (keyVersions.get(keyId) !== version) return;
        keyVersions.delete(keyId);
        if (next === null) endAll(keyId, 'revoked');
        else applyChange(next);
      },
      (error: unknown) => {
        if (keyVersions.get(keyId) === version) keyVersions.delete(keyId);
        // A key that cannot be read again is not trusted on: what it holds open closes.
        endAll(keyId, 'revoked');
        deps.onError?.(error);
      },
    );
  }

  const unsubscribes = [
    deps.events.subscribe(
      (event) => {
        endAll(event.data.key_id, 'revoked');
      },
      // A key revoked or a user changed on any process closes the streams held by every process.
      { types: ['api_key.deleted'], reach: 'cluster' },
    ),
    deps.events.subscribe(
      (event) => {
        recheckKey(event.data.key_id);
      },
      // A key narrowed on any process narrows (or closes) what it holds open on every process.
      { types: ['api_key.updated'], reach: 'cluster' },
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
        // A user's role caps their keys (decision 0077): what any key holds open is checked again.
        for (const watchKey of [...byKey.keys()])
          if (!watchKey.startsWith(sessionPrefix)) recheckKey(watchKey);
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
    deps.bus?.onReconnected?.(() => {
      for (const watchKey of [...byKey.keys()]) {
        if (!watchKey.startsWith(sessionPrefix)) {
          recheckKey(watchKey);
          continue;
        }
        deps.isSessionActive?.(watchKey.slice(sessionPrefix.length)).then(
          (active) => {
            if (!active) endAll(watchKey, 'revoked');
          },
          (error: unknown) => deps.onError?.(error),
        );
      }
    }) ?? (() => undefined),
  ];

  function watch(
    watchKey: string,
    expiresAt: string | null,
    listener: (end: CredentialEnd) => void,
    changed: PrincipalChanged | null = null,
  ): Watch {
    const entry: Watch = { keyId: watchKey, listener, changed, expiresAt, cancelTimer: () => undefined };
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
    onCredentialEnded(key, listener, onChanged) {
      const entry = watch(key.id, key.expiresAt, listener, onChanged ?? null);
      return () => {
        stop(entry);
        if (!byKey.has(key.id)) keyVersions.delete(key.id);
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
    keyChanged(principal) {
      if (!principal.key || !byKey.has(principal.key.id)) return;
      // Newer than any read still under way (its event, delivered here too, started one).
      bumpVersion(principal.key.id);
      applyChange(principal);
    },
    close() {
      for (const unsubscribe of unsubscribes) unsubscribe();
      sessionsOfUser.clear();
      for (const set of byKey.values()) for (const watch of set) watch.cancelTimer();
      byKey.clear();
      keyVersions.clear();
    },
  };
}
