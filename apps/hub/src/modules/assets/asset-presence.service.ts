/** The assets module's side of agent presence: the port agents/presence.ts writes through. */
import type { AssetPresenceStore } from '../../agents/presence.js';
import type { Executor } from '../../platform/db/schema.js';
import {
  findPresenceRows,
  listOnlineHeldBy,
  writeAllOffline,
  writeGoneOffline,
  writeLastSeen,
  writeManyOnline,
  writeOffline,
  writeOnline,
  writeOnlineAgain,
  writeOrphansOffline,
} from './asset-presence.repository.js';

export function createAssetPresenceStore(db: Executor): AssetPresenceStore {
  return {
    findMany: (ids) => findPresenceRows(db, ids),
    markOnline: (id, changes, fence) => writeOnline(db, id, changes, fence),
    markManyOnline: (ids, changes, fence) => writeManyOnline(db, ids, changes, fence),
    touchLastSeen: (ids, iso, node, fence) => writeLastSeen(db, ids, iso, node, fence),
    markOffline: (id, iso, node, fence) => writeOffline(db, id, iso, node, fence),
    markAllOffline: (ids, iso, node, fence) => writeAllOffline(db, ids, iso, node, fence),
    onlineHeldBy: (node, limit, after) => listOnlineHeldBy(db, node, limit, after),
    markGoneOffline: (ids, node, iso, unregistered) => writeGoneOffline(db, ids, node, iso, unregistered),
    markOnlineAgain: (ids, node, iso, fence) => writeOnlineAgain(db, ids, node, iso, fence),
    markOrphansOffline: (liveNodes) => writeOrphansOffline(db, [...liveNodes]),
  };
}
