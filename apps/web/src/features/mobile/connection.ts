/**
 * The app's view of the hub connection: the event WebSocket (its origin, attempts, last close code, for the
 * `connectionDebugBanner`), whether the hub answers (online, or offline with the last snapshot shown as stale),
 * reconnecting after a drop when `autoReconnect` is on; and the open remote session's own connection.
 */
import { useSyncExternalStore } from 'react';

export interface ConnectionState {
  /** The hub answered the last request (or the event socket is open). */
  reachable: boolean;
  socketState: 'connecting' | 'open' | 'closed' | 'off';
  socketOrigin: string;
  attempts: number;
  lastCloseCode: number | null;
  /** The open remote session's connection in words (live, reconnecting with its attempt), or null. */
  session: string | null;
}

let state: ConnectionState = {
  reachable: navigator.onLine,
  socketState: 'off',
  socketOrigin: window.location.origin.replace(/^http/, 'ws'),
  attempts: 0,
  lastCloseCode: null,
  session: null,
};
const listeners = new Set<() => void>();

export function updateConnection(change: Partial<ConnectionState>): void {
  state = { ...state, ...change };
  for (const listener of listeners) listener();
}

/** The state now, for code outside React. */
export function currentConnection(): ConnectionState {
  return state;
}

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useConnection(): ConnectionState {
  return useSyncExternalStore(subscribe, () => state);
}
