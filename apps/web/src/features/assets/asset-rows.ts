/**
 * Rows of the assets list fetched page by page as they scroll into view: the hub pages, sorts and filters,
 * the browser holds only the pages near what is shown. The first page also gives the total, which sizes the
 * scroll area, so scrolling to row 9,000 fetches page 46 and nothing between.
 */
import { keepPreviousData, useQueries, useQuery } from '@tanstack/react-query';
import type { Asset, AssetSort, AssetStatus, Platform } from '@svc/protocol';
import { hub } from '../../api/client';

const rowsPerPage = 200;
export interface AssetFilter {
  status?: AssetStatus;
  platform?: Platform;
  group?: string;
  q?: string;
  sort?: AssetSort;
}

async function fetchPage(filter: AssetFilter, page: number) {
  return hub.call('assets.list', { query: { ...filter, page, per_page: rowsPerPage } });
}

function assetPageKey(filter: AssetFilter, page: number) {
  return ['assets', 'list', filter, page] as const;
}

/**
 * The total and the rows of `first..last` (inclusive) that are loaded: a row not loaded yet is undefined.
 * `refetchInterval` keeps status and last-seen fresh without a reload.
 */
export function useAssetRows(filter: AssetFilter, first: number, last: number, refetchInterval: number) {
  const head = useQuery({
    queryKey: assetPageKey(filter, 1),
    queryFn: () => fetchPage(filter, 1),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
  const total = head.data?.meta.total ?? 0;
  const firstPage = Math.floor(first / rowsPerPage) + 1;
  const lastPage = Math.min(
    Math.floor(Math.max(last, first) / rowsPerPage) + 1,
    Math.max(1, Math.ceil(total / rowsPerPage)),
  );
  const pageNumbers: number[] = [];
  for (let page = Math.max(2, firstPage); page <= lastPage; page += 1) pageNumbers.push(page);
  const pages = useQueries({
    queries: pageNumbers.map((page) => ({
      queryKey: assetPageKey(filter, page),
      queryFn: () => fetchPage(filter, page),
      refetchInterval,
    })),
  });
  const rowAt = (index: number): Asset | undefined => {
    const page = Math.floor(index / rowsPerPage) + 1;
    const data = page === 1 ? head.data : pages[pageNumbers.indexOf(page)]?.data;
    return data?.data[index - (page - 1) * rowsPerPage];
  };
  return { head, total, rowAt };
}
