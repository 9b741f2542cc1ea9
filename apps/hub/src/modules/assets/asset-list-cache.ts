import type { Asset } from '@svc/protocol';
import type { Page } from '../../platform/db/paging.js';

/**
 * Bounds on what is kept: a fleet's callers ask for few distinct pages, but any caller can ask for many (every
 * page size and page number), so memory is bounded by assets kept as well as by pages (20,000 assets are a few
 * tens of MiB with their JSON).
 */
export const assetListCacheLimits = { pages: 512, assets: 20_000 } as const;

/**
 * Asset list pages as the unrestricted caller sees them, each kept with the stamp of the data it was read from
 * (the write counter of the assets table, which changes of agent readiness move too). A page is served only while the stamp is
 * unchanged, so it is never older than the last write this process has seen; on SQLite that is every write
 * (write-versions.ts). Callers limited to some assets are not cached.
 */
export interface AssetListCache {
  /** The current stamp; read it before reading the data a page is made from. */
  stamp(): string;
  get(key: string, stamp: string): Page<Asset> | undefined;
  set(key: string, stamp: string, page: Page<Asset>): void;
  /** What is kept now (for tests and diagnostics). */
  size(): { pages: number; assets: number };
}

export function createAssetListCache(stamp: () => string): AssetListCache {
  const pages = new Map<string, { stamp: string; page: Page<Asset> }>();
  let pagesStamp = '';
  let assetsKept = 0;
  const clear = () => {
    pages.clear();
    assetsKept = 0;
  };
  return {
    stamp,
    size: () => ({ pages: pages.size, assets: assetsKept }),
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
        clear();
        pagesStamp = readAt;
      }
      if (readAt !== stamp() || pages.has(key)) return;
      const full =
        pages.size >= assetListCacheLimits.pages ||
        assetsKept + page.items.length > assetListCacheLimits.assets;
      if (full) clear();
      pages.set(key, { stamp: readAt, page });
      assetsKept += page.items.length;
    },
  };
}
