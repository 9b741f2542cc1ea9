/**
 * What a page shows for one list it reads: a spinner while it loads, the hub's error with a retry, the empty
 * state when there is nothing, and otherwise the rows.
 */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorNotice } from './ErrorNotice';
import { Loading } from './Loading';

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
