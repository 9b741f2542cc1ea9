/** Incidents the caller may see, newest first, open ones by default; resolve for roles that may change things. */
import { useState } from 'react';
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { incidentStatuses, type Incident } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/Dialog';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { formatTime } from '../../components/units';
import { SeverityBadge } from '../alerts/SeverityBadge';
import { useLiveInterval } from '../events/LiveEvents';

const perPage = 50;

function isStatus(value: string): value is (typeof incidentStatuses)[number] {
  return (incidentStatuses as readonly string[]).includes(value);
}

export function IncidentsPage() {
  const { canMutate } = useSession();
  const client = useQueryClient();
  const [params, setParams] = useSearchParams();
  const raw = params.get('status') ?? 'open';
  const status = isStatus(raw) ? raw : null;
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [resolving, setResolving] = useState<Incident | null>(null);
  const incidents = useQuery({
    queryKey: ['alerts', 'incidents', status, page],
    queryFn: () =>
      hub.call('incidents.list', { query: { page, per_page: perPage, ...(status ? { status } : {}) } }),
    placeholderData: keepPreviousData,
    // Alert and incident events refresh it at once (the shell's feed); polling is the fallback.
    refetchInterval: useLiveInterval(10_000),
  });
  const resolve = useMutation({
    mutationFn: async (id: string) => (await hub.call('incidents.resolve', { params: { id } })).data,
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: ['alerts'] });
      setResolving(null);
    },
  });
  return (
    <section className="page" aria-labelledby="incidents-title">
      <div className="page-header">
        <h1 id="incidents-title">Incidents</h1>
        <Link to="/alerts">Alerts</Link>
      </div>
      <div className="filters" role="search" aria-label="Filter incidents">
        <div className="filter">
          <label htmlFor="incident-status">Status</label>
          <select
            id="incident-status"
            value={status ?? 'all'}
            onChange={(e) => {
              setParams(new URLSearchParams({ status: e.target.value }), { replace: true });
            }}
          >
            <option value="all">Any status</option>
            {incidentStatuses.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
      </div>
      {incidents.isPending && <Loading label="Loading incidents" />}
      {incidents.isError && <ErrorNotice error={incidents.error} retry={() => void incidents.refetch()} />}
      {incidents.isSuccess && incidents.data.data.length === 0 && (
        <EmptyState title="No incidents">
          <p>An incident opens when an asset's first alert fires, and gathers the alerts that follow.</p>
        </EmptyState>
      )}
      {incidents.isSuccess && incidents.data.data.length > 0 && (
        <>
          <div className="rows-scroll">
            <table className="data-table" aria-label="Incidents">
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Title</th>
                  <th scope="col">Alerts</th>
                  <th scope="col">Status</th>
                  <th scope="col">Opened</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {incidents.data.data.map((i) => (
                  <tr key={i.id} data-incident-id={i.id}>
                    <td>
                      <SeverityBadge severity={i.severity} />
                    </td>
                    <th scope="row">
                      <Link to={`/alerts?status=all&asset=${encodeURIComponent(i.asset_id)}`}>{i.title}</Link>
                    </th>
                    <td className="cell-number">
                      {i.active_alerts} active / {i.alert_count}
                    </td>
                    <td>{i.status}</td>
                    <td>{formatTime(i.opened_at)}</td>
                    {canMutate && (
                      <td>
                        {i.status === 'open' && (
                          <button
                            type="button"
                            onClick={() => {
                              setResolving(i);
                            }}
                          >
                            Resolve
                          </button>
                        )}
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Pager
            page={page}
            perPage={perPage}
            total={incidents.data.meta.total}
            busy={incidents.isFetching}
            onPage={(p) => {
              const next = new URLSearchParams(params);
              next.set('page', String(p));
              setParams(next, { replace: true });
            }}
          />
        </>
      )}
      <ConfirmDialog
        open={resolving !== null}
        title="Resolve incident"
        confirmLabel="Resolve"
        busy={resolve.isPending}
        onConfirm={() => {
          if (resolving) resolve.mutate(resolving.id);
        }}
        onClose={() => {
          setResolving(null);
        }}
      >
        <p>{resolving?.title}</p>
        <p>Its alerts stay as they are; the asset's next alert opens a new incident.</p>
        {resolve.isError && <ErrorNotice error={resolve.error} />}
      </ConfirmDialog>
    </section>
  );
}
