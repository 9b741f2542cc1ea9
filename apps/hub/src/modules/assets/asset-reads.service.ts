/** The assets module's reads for the layers below the modules (agents/asset-reads.ts), on its repository. */
import type { AssetReads } from '../../agents/asset-reads.js';
import type { Executor } from '../../platform/db/schema.js';
import { findAsset, findAssetNames, findAssetSummaries } from './assets.repository.js';

export function createAssetReads(db: Executor): AssetReads {
  return {
    row: (id) => findAsset(db, id),
    summaries: (ids) => findAssetSummaries(db, ids),
    names: (ids) => findAssetNames(db, ids),
  };
}
