/**
 * What an asset's agent answered for a tab, with the states every tab shares: loading, the hub's error as it
 * is (409 for an offline asset, 403 for a role that may not read it), and a refresh button with the time of
 * the answer shown.
 */
import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatClock } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';

/** What a tab asks the agent for: the `part` of the `assetTabs.asking` and `assetTabs.loading` messages. */
export type AgentPart =
  | 'processes'
  | 'services'
  | 'logs'
  | 'folder'
  | 'disks'
  | 'network'
  | 'packages'
  | 'users'
  | 'cron'
  | 'containers'
  | 'stacks'
  | 'images'
  | 'volumes';

export function AgentAnswer<T>({
  query,
  what,
  children,
}: {
  query: UseQueryResult<T>;
  /** `processes`, `services`…: "Loading the processes". */
  what: AgentPart;
  children: (data: T) => ReactNode;
}) {
  const { t } = useT();
  const updated = query.dataUpdatedAt > 0 ? formatClock(new Date(query.dataUpdatedAt).toISOString()) : null;
  return (
    <div className="agent-answer">
      <div className="section-toolbar">
        <span className="muted small" aria-live="polite">
          {query.isFetching
            ? t('assetTabs.asking', { part: what })
            : updated
              ? t('assetTabs.asOf', { time: updated })
              : ''}
        </span>
        <button
          type="button"
          className="small"
          disabled={query.isFetching}
          onClick={() => void query.refetch()}
        >
          {t('assetTabs.refresh')}
        </button>
      </div>
      {query.isPending && <Loading label={t('assetTabs.loading', { part: what })} />}
      {query.isError && <ErrorNotice error={query.error} />}
      {query.isSuccess && children(query.data)}
    </div>
  );
}
