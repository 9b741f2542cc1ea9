/** Update runs, newest first (`/updates/runs`): scheduled, running and past, filtered by status and mode. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { updateRunModes, updateRunStatuses, type UpdateRun, type UpdateRunsQuery } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { formatTime } from '../../components/units';
import { useLiveInterval } from '../events/LiveEvents';
import { runsKey } from './updates-keys';
import { countsText, modeText, selectionText } from './updates-text';
import { UpdatesNav } from './UpdatesNav';

const perPage = 50;

function oneOf<V extends string>(values: readonly V[], raw: string | null): V | null {
  return (values as readonly (string | null)[]).includes(raw) ? (raw as V) : null;
}

function targetsText(run: UpdateRun): string {
  if (run.group !== null) return 'a group';
  const n = run.targets?.length ?? 0;
  return `${String(n)} machine${n === 1 ? '' : 's'}`;
}

export function UpdateRunsPage() {
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
        title="Updates"
        count={runs.isSuccess ? { n: runs.data.meta.total, noun: 'run' } : undefined}
      />
      <UpdatesNav />
      <div className="filters" role="search" aria-label="Filter update runs">
        <FilterSelect
          id="update-run-status"
          label="Status"
          value={status ?? ''}
          anyLabel="Any status"
          options={updateRunStatuses}
          onChange={(value) => {
            setFilter('status', value);
          }}
        />
        <FilterSelect
          id="update-run-mode"
          label="Mode"
          value={mode ?? ''}
          anyLabel="Dry runs and applies"
          options={updateRunModes}
          optionLabel={(m) => modeText[m]}
          onChange={(value) => {
            setFilter('mode', value);
          }}
        />
      </div>
      <PagedQueryStates
        query={runs}
        loadingLabel="Loading update runs"
        empty={
          <EmptyState title="No update runs">
            <p>A dry run asks each machine&apos;s package manager what it would change; an apply installs.</p>
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
            <table className="data-table" aria-label="Update runs">
              <thead>
                <tr>
                  <th scope="col">Run</th>
                  <th scope="col">Updates</th>
                  <th scope="col">Targets</th>
                  <th scope="col">Status</th>
                  <th scope="col">Results</th>
                  <th scope="col">Starts</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((run) => (
                  <tr key={run.id} data-run-id={run.id}>
                    <th scope="row">
                      <Link to={`/updates/runs/${encodeURIComponent(run.id)}`}>
                        {modeText[run.mode]} {formatTime(run.created_at)}
                      </Link>
                    </th>
                    <td>{selectionText[run.selection]}</td>
                    <td>{targetsText(run)}</td>
                    <td>
                      {run.status}
                      {run.status_reason && <span className="muted small"> ({run.status_reason})</span>}
                    </td>
                    <td>{countsText(run.counts)}</td>
                    <td>{formatTime(run.started_at ?? run.scheduled_at ?? run.created_at)}</td>
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
