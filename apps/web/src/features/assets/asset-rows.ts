/**
 * Rows of the assets list fetched page by page as they scroll into view: the hub pages, sorts and filters,
 * the browser holds only the pages near what is shown. The first page also gives the total, which sizes the
 * scroll area, so scrolling to row 9,000 fetches page 46 and nothing between.
 */
import { useMemo } from 'react';
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

/** Page 1 of the list: its rows, and the total that sizes the scroll area. */
export function useAssetHead(filter: AssetFilter, refetchInterval: number) {
  return useQuery({
    queryKey: assetPageKey(filter, 1),
    queryFn: () => fetchPage(filter, 1),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
}

type ListAnswer = Awaited<ReturnType<typeof fetchPage>>;

/**
 * The rows of `first..last` (inclusive) that are loaded, from page 1 (`head`) and the pages fetched for the
 * range: a row not loaded yet is undefined. `refetchInterval` keeps status and last seen fresh.
 */
export function useAssetPages(
  filter: AssetFilter,
  head: ListAnswer,
  first: number,
  last: number,
  refetchInterval: number,
): (index: number) => Asset | undefined {
  const total = head.meta.total;
  const firstPage = Math.floor(first / rowsPerPage) + 1;
  const lastPage = Math.min(
    Math.floor(Math.max(last, first) / rowsPerPage) + 1,
    Math.max(1, Math.ceil(total / rowsPerPage)),
  );
  // The same pages for every row of a page: the query list is made again only when a page comes or goes.
  const { pageNumbers, queries } = useMemo(() => {
    const numbers: number[] = [];
    for (let page = Math.max(2, firstPage); page <= lastPage; page += 1) numbers.push(page);
    return {
      pageNumbers: numbers,
      queries: numbers.map((page) => ({
        queryKey: assetPageKey(filter, page),
        queryFn: () => fetchPage(filter, page),
        refetchInterval,
        // A page scrolled past and back within the interval is not fetched again on the way.
        staleTime: refetchInterval,
      })),
    };
  }, [filter, firstPage, lastPage, refetchInterval]);
  const pages = useQueries({ queries });
  return (index) => {
    const page = Math.floor(index / rowsPerPage) + 1;
    const data = page === 1 ? head : pages[pageNumbers.indexOf(page)]?.data;
    return data?.data[index - (page - 1) * rowsPerPage];
  };
}
