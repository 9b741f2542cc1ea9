import type { SearchHit, SearchQuery } from '@svc/protocol';
import { pageWindow, readStringList, toPage, type Page, type PageRequest } from '../../platform/db/paging.js';
import { validationError } from '../../platform/hub-error.js';
import type { Principal } from '../../access/principal.js';
import { visibleAssetIds, type AssetRow, type AssetService } from '../assets/assets.service.js';
import type { GroupService } from '../groups/groups.service.js';

export interface SearchService {
  search(principal: Principal, query: SearchQuery, page: PageRequest): Promise<Page<SearchHit>>;
}

/** Which field of an asset the text matched, shown to the user beside the hit. */
function matchedField(row: AssetRow, needle: string): string {
  const candidates = [
    row.name,
    row.hostname ?? '',
    ...readStringList(row.ip_addresses),
    ...readStringList(row.tags),
  ];
  return candidates.find((c) => c.toLowerCase().includes(needle)) ?? row.name;
}

/**
 * Searches assets, then groups, as one list paged across both. Both halves are filtered by what the principal
 * may see inside the query, so a hit outside `allowed_assets` never reaches the page or the total.
 */
export function createSearchService(deps: {
  assets: Pick<AssetService, 'matching'>;
  groups: Pick<GroupService, 'matching'>;
}): SearchService {
  const { assets, groups } = deps;
  return {
    async search(principal, query, page) {
      const text = query.q.trim();
      // Blank text would match everything: refuse it like an empty q.
      if (text === '') throw validationError('query.q', 'must contain a character other than spaces');
      const needle = text.toLowerCase();
      const visible = visibleAssetIds(principal);
      const { limit, offset } = pageWindow(page);
      const hits: SearchHit[] = [];

      let assetTotal = 0;
      if (query.type !== 'group') {
        const found = await assets.matching(visible, text, { limit, offset });
        assetTotal = found.total;
        for (const row of found.rows) {
          hits.push({ type: 'asset', id: row.id, name: row.name, matched: matchedField(row, needle) });
        }
      }
      let groupTotal = 0;
      if (query.type !== 'asset') {
        const groupWindow = { limit: limit - hits.length, offset: Math.max(0, offset - assetTotal) };
        const found = await groups.matching(visible, text, groupWindow);
        groupTotal = found.total;
        for (const row of found.rows)
          hits.push({ type: 'group', id: row.id, name: row.name, matched: row.name });
      }
      return toPage(hits, assetTotal + groupTotal, page);
    },
  };
}
