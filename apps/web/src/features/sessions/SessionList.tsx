/**
 * The list scaffolding of the Sessions and Desktops pages: a heading, then loading, error (with retry), an
 * empty state, or a table of one row per item.
 */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';

export function SessionList<T extends { id: string }>({
  title,
  query,
  loadingLabel,
  empty,
  emptyHint,
  label,
  columns,
  row,
}: {
  title: string;
  query: UseQueryResult<T[]>;
  loadingLabel: string;
  empty: string;
  emptyHint?: ReactNode;
  /** The table's accessible name. */
  label: string;
  /** Column headings; the last may be empty (a row's buttons). */
  columns: string[];
  /** The cells of one item's row. */
  row: (item: T) => ReactNode;
}) {
  return (
    <>
      <h2>{title}</h2>
      {query.isPending && <Loading label={loadingLabel} />}
      {query.isError && <ErrorNotice error={query.error} retry={() => void query.refetch()} />}
      {query.isSuccess && query.data.length === 0 && (
        <EmptyState title={empty}>{emptyHint ? <p>{emptyHint}</p> : null}</EmptyState>
      )}
      {query.isSuccess && query.data.length > 0 && (
        <table aria-label={label}>
          <thead>
            <tr>
              {columns.map((column, index) => (
                <th key={index}>{column}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {query.data.map((item) => (
              <tr key={item.id}>{row(item)}</tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
