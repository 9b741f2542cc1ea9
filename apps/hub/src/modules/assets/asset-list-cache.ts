import type { Asset } from '@svc/protocol';
import type { Page } from '../../platform/db/paging.js';

/** Pages kept at most; a fleet's callers ask for few distinct pages, this only bounds memory. */
const maxPages = 512;

/**
 * Asset list pages as the unrestricted caller sees them, each kept with the stamp of the data it was read from
 * (a write counter of the assets table and of agent readiness). A page is served only while the stamp is
 * unchanged, so it is never older than the last write this process has seen; on SQLite that is every write
 * (write-versions.ts). Callers limited to some assets are not cached.
 */
export interface AssetListCache {
  /** The current stamp; read it before reading the data a page is made from. */
  stamp(): string;
  get(key: string, stamp: string): Page<Asset> | undefined;
  set(key: string, stamp: string, page: Page<Asset>): void;
}

export function createAssetListCache(stamp: () => string): AssetListCache {
  const pages = new Map<string, { stamp: string; page: Page<Asset> }>();
  let pagesStamp = '';
  return {
    stamp,
    get(key, current) {
      const entry = pages.get(key);
      if (!entry || entry.stamp !== current) return undefined;
      // Serialized on its second use, so a page read once costs nothing more. The items are protocol objects
      // made by the presenter, with nothing beyond the response schema.
      entry.page.serialized ??= JSON.stringify({ data: entry.page.items, meta: entry.page.meta }).slice(
        1,
        -1,
      );
      return entry.page;
    },
    set(key, readAt, page) {
      // Pages of an older stamp can never be served again: drop them all at once.
      if (readAt !== pagesStamp) {
        pages.clear();
        pagesStamp = readAt;
      }
      if (pages.size >= maxPages) pages.clear();
      if (readAt === stamp()) pages.set(key, { stamp: readAt, page });
    },
  };
}
