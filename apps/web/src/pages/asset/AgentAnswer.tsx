/**
 * What an asset's agent answered for a tab, with the states every tab shares: loading, the hub's error as it
 * is (409 for an offline asset, 403 for a role that may not read it), and a refresh button with the time of
 * the answer shown.
 */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';

export function AgentAnswer<T>({
  query,
  what,
  children,
}: {
  query: UseQueryResult<T>;
  /** `processes`, `services`…: "Loading the processes". */
  what: string;
  children: (data: T) => ReactNode;
}) {
  const updated = query.dataUpdatedAt > 0 ? new Date(query.dataUpdatedAt).toLocaleTimeString() : null;
  return (
    <div className="agent-answer">
      <div className="section-toolbar">
        <span className="muted small" aria-live="polite">
          {query.isFetching ? `Asking the agent for the ${what}…` : updated ? `As of ${updated}` : ''}
        </span>
        <button
          type="button"
          className="small"
          disabled={query.isFetching}
          onClick={() => void query.refetch()}
        >
          Refresh
        </button>
      </div>
      {query.isPending && <Loading label={`Loading the ${what}`} />}
      {query.isError && <ErrorNotice error={query.error} />}
      {query.isSuccess && children(query.data)}
    </div>
  );
}
