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

  it('carries kept pages over a write that changed one asset in place, and only such a write', async () => {
    let version = 1;
    const cache = createAssetListCache(() => String(version));
    let loads = 0;
    const load = (page: number) => () => {
      loads += 1;
      return Promise.resolve(pageOf(3, page));
    };
    await cache.read('p1', load(1));
    await cache.read('p2', load(2));
    const changed = { id: 'ast_1_1', description: 'new' } as Asset;
    version = 2;
    cache.replace('1', '2', changed);
    const first = await cache.read('p1', load(1));
    expect(first.items.map((a) => a.description ?? null)).toEqual([null, 'new', null]);
    expect(first.serialized).toContain('"description":"new"');
    expect((await cache.read('p2', load(2))).items.map((a) => a.id)).toEqual([
      'ast_2_0',
      'ast_2_1',
      'ast_2_2',
    ]);
    expect(loads).toBe(2);
    // Another write came between (the stamp moved twice): the pages are read again.
    version = 4;
    cache.replace('2', '3', { id: 'ast_1_1', description: 'newer' } as Asset);
    expect((await cache.read('p1', load(1))).items[1]?.description).toBeUndefined();
    expect(loads).toBe(3);
  });

  it('does not let a page read before a write drop the pages carried over it', async () => {
    let version = 1;
    const cache = createAssetListCache(() => String(version));
    await cache.read('p1', () => Promise.resolve(pageOf(2, 1)));
    let finish: (page: Page<Asset>) => void = () => undefined;
    const late = cache.read('p2', () => new Promise<Page<Asset>>((resolve) => (finish = resolve)));
    version = 2;
    cache.replace('1', '2', { id: 'ast_1_0', description: 'x' } as Asset);
    finish(pageOf(2, 2));
    await late;
    expect(cache.get('p1', '2')?.items[0]?.description).toBe('x');
    expect(cache.get('p2', '2')).toBeUndefined();
  });
});
