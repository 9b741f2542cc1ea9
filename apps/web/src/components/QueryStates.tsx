/**
 * What a page shows for one list it reads: a spinner while it loads, the hub's error with a retry, the empty
 * state when there is nothing, and otherwise the rows (and, for a list the hub pages, the pager under them).
 */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorNotice } from './ErrorNotice';
import { Loading } from './Loading';
import { Pager } from './Pager';

export function QueryStates<T>({
  query,
  loadingLabel,
  empty,
  children,
}: {
  query: UseQueryResult<readonly T[]>;
  loadingLabel: string;
  /** Shown instead of the rows when the list is empty. */
  empty: ReactNode;
  children: (rows: readonly T[]) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loadingLabel} />;
  if (query.isError) return <ErrorNotice error={query.error} retry={() => void query.refetch()} />;
  return query.data.length === 0 ? empty : children(query.data);
}

/** One page of a list as the hub answers it. */
interface ListPage<T> {
  data: readonly T[];
  meta: { total: number };
}

export function PagedQueryStates<T>({
  query,
  loadingLabel,
  empty,
  page,
  perPage,
  onPage,
  children,
}: {
  query: UseQueryResult<ListPage<T>>;
  loadingLabel: string;
  /** Shown instead of the rows when the page is empty. */
  empty: ReactNode;
  page: number;
  perPage: number;
  onPage: (page: number) => void;
  children: (rows: readonly T[]) => ReactNode;
}) {
  if (query.isPending) return <Loading label={loadingLabel} />;
  if (query.isError) return <ErrorNotice error={query.error} retry={() => void query.refetch()} />;
  if (query.data.data.length === 0) return empty;
  return (
    <>
      {children(query.data.data)}
      <Pager
        page={page}
        perPage={perPage}
        total={query.data.meta.total}
        onPage={onPage}
        busy={query.isFetching}
      />
    </>
  );
}
