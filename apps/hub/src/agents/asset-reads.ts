/**
 * The reads of assets the layers below the modules make (the agent-call path, target sets): a port, supplied by
 * the assets module that owns the table (modules/assets/asset-reads.service.ts) and handed down by hub.ts.
 */
import type { AssetsTable } from '../platform/db/schema.js';

/** An asset as operations see it. */
export type AssetRow = AssetsTable;

/**
 * What an operation on many assets needs of each: who it is, when offline since when, whether it is the hub's
 * own host, and its presence status (whether some hub process holds its agent, when this one cannot ask them).
 */
export type AssetSummary = Pick<AssetRow, 'id' | 'name' | 'last_seen_at' | 'hub_host' | 'status'>;

export interface AssetReads {
  row(id: string): Promise<AssetRow | undefined>;
  /** The assets among `ids` that exist, in no particular order (a fan-out to 10,000 assets costs 20 queries). */
  summaries(ids: readonly string[]): Promise<AssetSummary[]>;
  /** Names of the assets among `ids` that exist. */
  names(ids: readonly string[]): Promise<Map<string, string>>;
}
