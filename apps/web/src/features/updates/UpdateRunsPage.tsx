/** Update runs, newest first (`/updates/runs`): scheduled, running and past, filtered by status and mode. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { updateRunModes, updateRunStatuses, type UpdateRunsQuery } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { useLiveInterval } from '../events/LiveEvents';
import { runsKey } from './updates-keys';
import { CountsText } from './CountsText';
import { UpdatesNav } from './UpdatesNav';

const perPage = 50;

function oneOf<V extends string>(values: readonly V[], raw: string | null): V | null {
  return (values as readonly (string | null)[]).includes(raw) ? (raw as V) : null;
}

export function UpdateRunsPage() {
  const { t } = useT();
  const [params, setParams] = useSearchParams();
  const status = oneOf(updateRunStatuses, params.get('status'));
  const mode = oneOf(updateRunModes, params.get('mode'));
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const query: UpdateRunsQuery = { ...(status ? { status } : {}), ...(mode ? { mode } : {}) };
  const runs = useQuery({
    queryKey: runsKey(query, page),
    queryFn: () => hub.call('updates.runs.list', { query: { ...query, page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval: useLiveInterval(10_000),
  });
  const setFilter = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    next.delete('page');
    if (value) next.set(key, value);
    else next.delete(key);
    setParams(next, { replace: true });
  };
  return (
    <section className="page" aria-labelledby="update-runs-title">
      <PageHeader
        titleId="update-runs-title"
        title={t('updates.title')}
        count={runs.isSuccess ? t('updates.runCount', { n: runs.data.meta.total }) : undefined}
      />
      <UpdatesNav />
      <div className="filters" role="search" aria-label={t('updates.runFilters')}>
        <FilterSelect
          id="update-run-status"
          label={t('updates.status')}
          value={status ?? ''}
          anyLabel={t('updates.anyStatus')}
          optionLabel={(value) => t('updates.runStatus', { status: value })}
          options={updateRunStatuses}
          onChange={(value) => {
            setFilter('status', value);
          }}
        />
        <FilterSelect
          id="update-run-mode"
          label={t('updates.modeLabel')}
          value={mode ?? ''}
          anyLabel={t('updates.anyMode')}
          options={updateRunModes}
          optionLabel={(m) => t('updates.mode', { mode: m })}
          onChange={(value) => {
            setFilter('mode', value);
          }}
        />
      </div>
      <PagedQueryStates
        query={runs}
        loadingLabel={t('updates.loadingRuns')}
        empty={
          <EmptyState title={t('updates.noRuns')}>
            <p>{t('updates.noRunsText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={(p) => {
          const next = new URLSearchParams(params);
          next.set('page', String(p));
          setParams(next, { replace: true });
        }}
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('updates.runsTable')}>
              <thead>
                <tr>
                  {(['run', 'updates', 'targets', 'status', 'results', 'starts'] as const).map((column) => (
                    <th key={column} scope="col">
                      {t('updates.runsColumn', { column })}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {rows.map((run) => (
                  <tr key={run.id} data-run-id={run.id}>
                    <th scope="row">
                      <Link to={`/updates/runs/${encodeURIComponent(run.id)}`}>
                        {t('updates.mode', { mode: run.mode })} <Time value={run.created_at} />
                      </Link>
                    </th>
                    <td>{t('updates.selection', { selection: run.selection })}</td>
                    <td>
                      {t('updates.targets', {
                        group: run.group !== null ? 'yes' : 'no',
                        n: run.targets?.length ?? 0,
                      })}
                    </td>
                    <td>
                      {t('updates.runStatus', { status: run.status })}
                      {run.status_reason && (
                        <span className="muted small" translate="no">
                          {' '}
                          ({run.status_reason})
                        </span>
                      )}
                    </td>
                    <td>
                      <CountsText counts={run.counts} />
                    </td>
                    <td>
                      <Time value={run.started_at ?? run.scheduled_at ?? run.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
    </section>
  );
}
