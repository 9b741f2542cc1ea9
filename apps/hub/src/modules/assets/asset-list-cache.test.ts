import { describe, expect, it } from 'vitest';
import type { Asset } from '@svc/protocol';
import type { Page } from '../../platform/db/paging.js';
import { assetListCacheLimits, createAssetListCache } from './asset-list-cache.js';

function pageOf(count: number, page = 1): Page<Asset> {
  const items = Array.from({ length: count }, (_, i) => ({ id: `ast_${page}_${i}` }) as Asset);
  return { items, meta: { total: count, page, per_page: count } };
}

describe('asset list cache', () => {
  it('stays within its bound of kept assets however many pages a caller asks for', () => {
    let version = 1;
    const cache = createAssetListCache(() => String(version));
    // A caller walking every page size and page number, 500 assets a page.
    for (let n = 0; n < 2 * assetListCacheLimits.pages; n++) {
      cache.set(`k${n}`, '1', pageOf(500, n));
      const { pages, assets } = cache.size();
      expect(assets).toBeLessThanOrEqual(assetListCacheLimits.assets);
      expect(pages).toBeLessThanOrEqual(assetListCacheLimits.pages);
    }
    expect(cache.get(`k${2 * assetListCacheLimits.pages - 1}`, '1')).toBeDefined();
    version = 2;
    expect(cache.get('k0', '2')).toBeUndefined();
  });

  it('never keeps a page read under a stamp that has moved on', () => {
    let version = 1;
    const cache = createAssetListCache(() => String(version));
    const stamp = cache.stamp();
    version = 2; // a write landed while the page was being read
    cache.set('k', stamp, pageOf(3));
    expect(cache.get('k', stamp)).toBeUndefined();
    expect(cache.get('k', cache.stamp())).toBeUndefined();
    expect(cache.size()).toEqual({ pages: 0, assets: 0 });
  });

  it('lets callers that arrive together share one read, and never a caller that came after a write', async () => {
    let version = 1;
    const cache = createAssetListCache(() => String(version));
    const loads: { resolve: (page: Page<Asset>) => void }[] = [];
    const load = () =>
      new Promise<Page<Asset>>((resolve) => {
        loads.push({ resolve });
      });
    const together = [cache.read('k', load), cache.read('k', load), cache.read('k', load)];
    expect(loads).toHaveLength(1);
    version = 2; // a write completes while that read is under way
    const after = cache.read('k', load);
    expect(loads).toHaveLength(2);
    loads[0]?.resolve(pageOf(1, 1));
    loads[1]?.resolve(pageOf(2, 2));
    const pages = await Promise.all(together);
    expect(pages.map((p) => p.meta.page)).toEqual([1, 1, 1]);
    expect((await after).meta.page).toBe(2);
    // What is kept is the page read after the write, and it is served without another read.
    expect((await cache.read('k', load)).meta.page).toBe(2);
    expect(loads).toHaveLength(2);
  });

  it('does not keep a failed read for the callers after it', async () => {
    const cache = createAssetListCache(() => '1');
    await expect(cache.read('k', () => Promise.reject(new Error('busy')))).rejects.toThrow('busy');
    expect((await cache.read('k', () => Promise.resolve(pageOf(2)))).items).toHaveLength(2);
  });
});
