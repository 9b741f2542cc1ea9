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
  /**
   * The page under `key` as of now: kept, or being read already under the current stamp (callers that arrive
   * together after a write share one read instead of each reading the database), or read by `load` and kept.
   */
  read(key: string, load: () => Promise<Page<Asset>>): Promise<Page<Asset>>;
  /**
   * Moves the pages kept at stamp `from` to stamp `to`, with `item` in place of the kept copy of that asset in
   * the pages that hold it. Only for a write that moved the stamp exactly once from `from` to `to` (nothing else
   * was written between) and changed no field a page's membership, order or total depends on (asset-list-cache
   * callers: orderNeutralFields); otherwise the pages stay at `from` and are dropped as before.
   */
  replace(from: string, to: string, item: Asset): void;
  /** What is kept now (for tests and diagnostics). */
  size(): { pages: number; assets: number };
}

/**
 * The page's `"data":[…],"meta":{…}`, made once per page object. The items are protocol objects made by the
 * presenter, with nothing beyond the response schema.
 */
function serialize(page: Page<Asset>): Page<Asset> {
  page.serialized ??= JSON.stringify({ data: page.items, meta: page.meta }).slice(1, -1);
  return page;
}

export function createAssetListCache(stamp: () => string): AssetListCache {
  const pages = new Map<string, { stamp: string; page: Page<Asset> }>();
  /**
   * Reads under way, by key. One is shared only by callers that saw the same stamp as the one that started it:
   * no write completed between its stamp and theirs, and its query runs after its stamp was taken, so what it
   * returns is as new as what each of them would have read.
   */
  const reading = new Map<string, { stamp: string; page: Promise<Page<Asset>> }>();
  let pagesStamp = '';
  let assetsKept = 0;
  const clear = () => {
    pages.clear();
    assetsKept = 0;
  };
  const cache: AssetListCache = {
    stamp,
    size: () => ({ pages: pages.size, assets: assetsKept }),
    get(key, current) {
      const entry = pages.get(key);
      if (!entry || entry.stamp !== current) return undefined;
      return serialize(entry.page);
    },
    set(key, readAt, page) {
      // A page read under a stamp that has moved on is never kept, nor lets the pages kept now be dropped.
      if (readAt !== stamp()) return;
      // Pages of an older stamp can never be served again: drop them all at once.
      if (readAt !== pagesStamp) {
        clear();
        pagesStamp = readAt;
      }
      if (pages.has(key)) return;
      const full =
        pages.size >= assetListCacheLimits.pages ||
        assetsKept + page.items.length > assetListCacheLimits.assets;
      if (full) clear();
      pages.set(key, { stamp: readAt, page });
      assetsKept += page.items.length;
    },
    replace(from, to, item) {
      if (pagesStamp !== from || to !== stamp()) return;
      for (const entry of pages.values()) {
        entry.stamp = to;
        const at = entry.page.items.findIndex((kept) => kept.id === item.id);
        if (at < 0) continue;
        // A new page object: the old one may still be on its way into a response.
        const items = entry.page.items.slice();
        items[at] = item;
        entry.page = serialize({ items, meta: entry.page.meta });
      }
      pagesStamp = to;
    },
    async read(key, load) {
      const current = stamp();
      const kept = cache.get(key, current);
      if (kept) return kept;
      const under = reading.get(key);
      if (under?.stamp === current) return under.page;
      const page = load();
      reading.set(key, { stamp: current, page });
      try {
        // Serialized once here: every caller that shared this read (after a write, all that arrived together)
        // sends it as is instead of each serializing the page again.
        const loaded = serialize(await page);
        cache.set(key, current, loaded);
        return loaded;
      } finally {
        if (reading.get(key)?.page === page) reading.delete(key);
      }
    },
  };
  return cache;
}
