/**
 * The event feed's clients indexed by what they can receive, so an event reaches only plausible ones: clients
 * that see every asset by the types they asked for (`types=`), clients limited to some assets by those
 * assets. The index only narrows; the caller still applies the full rule (`mayReceive`) to each candidate, so
 * it can never widen what a client sees.
 */
import type { EventType } from '@svc/protocol';
import type { HubEvent } from '../../platform/event-bus.js';

interface Indexable {
  /** `types=`, or null for every type. */
  readonly types: ReadonlySet<EventType> | null;
  /** The assets its principal may see, or null for every asset. */
  readonly allowedAssets: ReadonlySet<string> | null;
}

interface Entry {
  types: ReadonlySet<EventType> | null;
  assets: ReadonlySet<string> | null;
}

export interface SubscriberIndex<C> {
  /** Indexes `client` by its types and allowed assets as they are now. */
  add(client: C, by: Indexable): void;
  remove(client: C): void;
  /** Each client that may be interested in `event`, once. */
  forEachCandidate(event: HubEvent, visit: (client: C) => void): void;
}

function addTo<K, C>(map: Map<K, Set<C>>, key: K, client: C): void {
  let set = map.get(key);
  if (!set) {
    set = new Set();
    map.set(key, set);
  }
  set.add(client);
}

function removeFrom<K, C>(map: Map<K, Set<C>>, key: K, client: C): void {
  const set = map.get(key);
  if (!set) return;
  set.delete(client);
  if (set.size === 0) map.delete(key);
}

export function createSubscriberIndex<C>(): SubscriberIndex<C> {
  const entries = new Map<C, Entry>();
  /** Clients that see every asset and every type. */
  const everything = new Set<C>();
  /** Clients that see every asset, by each type they asked for. */
  const byType = new Map<EventType, Set<C>>();
  /** Clients limited to some assets, by each of those assets. */
  const byAsset = new Map<string, Set<C>>();

  return {
    add(client, by) {
      if (entries.has(client)) this.remove(client);
      const entry: Entry = { types: by.types, assets: by.allowedAssets };
      entries.set(client, entry);
      if (entry.assets !== null) {
        for (const asset of entry.assets) addTo(byAsset, asset, client);
      } else if (entry.types === null) {
        everything.add(client);
      } else {
        for (const type of entry.types) addTo(byType, type, client);
      }
    },

    remove(client) {
      const entry = entries.get(client);
      if (!entry) return;
      entries.delete(client);
      if (entry.assets !== null) {
        for (const asset of entry.assets) removeFrom(byAsset, asset, client);
      } else if (entry.types === null) {
        everything.delete(client);
      } else {
        for (const type of entry.types) removeFrom(byType, type, client);
      }
    },

    forEachCandidate(event, visit) {
      for (const client of everything) visit(client);
      const typed = byType.get(event.type);
      if (typed) for (const client of typed) visit(client);
      if (byAsset.size === 0) return;
      const ids = event.data.asset_ids;
      const seen = ids.length > 1 ? new Set<C>() : null;
      for (const id of ids) {
        const limited = byAsset.get(id);
        if (!limited) continue;
        for (const client of limited) {
          if (seen) {
            if (seen.has(client)) continue;
            seen.add(client);
          }
          const types = entries.get(client)?.types;
          if (types === undefined || (types !== null && !types.has(event.type))) continue;
          visit(client);
        }
      }
    },
  };
}
