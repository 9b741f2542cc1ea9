/**
 * The console's view of the hub's event feed: which cached queries an event makes stale, and a small store
 * (connection state, the latest events) that the shell writes and pages read. Pure, so unit-tested.
 */
import type { EventEnvelope } from '@svc/protocol';

type QueryKey = readonly unknown[];

/**
 * The query keys to refresh after `event`. Asset keys all begin with `['assets']` (asset-keys.ts), so one
 * asset's change refreshes its page and the lists; the dashboard's counts and charts follow presence.
 */
export function staleKeysOf(event: EventEnvelope): QueryKey[] {
  const area = event.type.slice(0, event.type.indexOf('.'));
  switch (area) {
    case 'asset':
    case 'agent':
      return [['assets'], ['status'], ['dashboard'], ['metrics'], ['search'], ['audit']];
    case 'group':
      return [['groups'], ['status'], ['search'], ['audit']];
    case 'service':
    case 'container':
    case 'power':
    case 'exec': {
      const assetId = 'asset_id' in event.data ? event.data.asset_id : null;
      return typeof assetId === 'string' ? [['assets', 'detail', assetId]] : [];
    }
    case 'alert':
    case 'incident':
      // Alerts, incidents and the dashboard's active count all live under ['alerts'].
      return [['alerts'], ['audit']];
    case 'schedule':
      return [['schedules']];
    case 'updates': {
      // An asset's report of available updates changed (updates-keys.ts).
      const assetId = 'asset_id' in event.data ? event.data.asset_id : null;
      return typeof assetId === 'string'
        ? [
            ['updates', 'fleet'],
            ['updates', 'asset', assetId],
          ]
        : [];
    }
    case 'update_run': {
      const runId = 'run_id' in event.data ? event.data.run_id : null;
      const run =
        typeof runId === 'string'
          ? [
              ['updates', 'runs'],
              ['updates', 'run', runId],
            ]
          : [];
      // An apply's end changes what the machines report.
      return event.type === 'update_run.completed'
        ? [...run, ['updates', 'fleet'], ['updates', 'asset']]
        : run;
    }
    case 'api_key':
      return [['keys']];
    case 'user':
      return [['users']];
    case 'settings':
      return [['settings']];
    case 'enrollment_token':
      return [['enrollment']];
    default:
      // heartbeat.update and the rest: the polling fallback keeps them fresh, a burst of them refetches nothing.
      return [];
  }
}

export type LiveState = 'connecting' | 'live' | 'reconnecting' | 'ended';

interface LiveSnapshot {
  state: LiveState;
  /** Newest first, at most `recentLimit`. */
  recent: readonly EventEnvelope[];
}

const recentLimit = 20;

/** Events too frequent to be activity a person reads. */
const quietTypes = new Set<string>(['heartbeat.update']);

export interface LiveStore {
  snapshot: () => LiveSnapshot;
  subscribe: (listener: () => void) => () => void;
  setState: (state: LiveState) => void;
  add: (event: EventEnvelope) => void;
}

export function createLiveStore(): LiveStore {
  let current: LiveSnapshot = { state: 'connecting', recent: [] };
  const listeners = new Set<() => void>();
  const emit = () => {
    for (const listener of listeners) listener();
  };
  return {
    snapshot: () => current,
    subscribe: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    setState: (state) => {
      if (state === current.state) return;
      current = { ...current, state };
      emit();
    },
    add: (event) => {
      if (quietTypes.has(event.type)) return;
      current = { ...current, recent: [event, ...current.recent].slice(0, recentLimit) };
      emit();
    },
  };
}

/** Polling while the feed is live only catches what it missed: every minute instead of every few seconds. */
export function pollingInterval(state: LiveState, fallbackMs: number): number {
  return state === 'live' ? Math.max(fallbackMs, 60_000) : fallbackMs;
}

/** One line a person reads for an event. */
export function describeEvent(event: EventEnvelope): string {
  const data = event.data as Record<string, unknown>;
  const name = typeof data.name === 'string' ? data.name : null;
  const subject = name ?? (typeof data.asset_id === 'string' ? data.asset_id : null);
  return subject === null ? event.type : `${event.type} · ${subject}`;
}
