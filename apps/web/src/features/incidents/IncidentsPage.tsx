/** Incidents the caller may see, newest first, open ones by default; resolve for roles that may change things. */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { incidentStatuses, type Incident } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmMutationDialog } from '../../components/ConfirmMutationDialog';
import { FilterSelect } from '../../components/FilterSelect';
import { EmptyState } from '../../components/EmptyState';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { formatTime } from '../../components/units';
import { SeverityBadge } from '../alerts/SeverityBadge';
import { useLiveInterval } from '../events/LiveEvents';

const perPage = 50;

function isStatus(value: string): value is (typeof incidentStatuses)[number] {
  return (incidentStatuses as readonly string[]).includes(value);
}

export function IncidentsPage() {
  const { canMutate } = useSession();
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
  const resolve = useResourceMutation({
    mutationFn: async (incident: Incident) =>
      (await hub.call('incidents.resolve', { params: { id: incident.id } })).data,
    invalidates: [['alerts']],
    onSuccess: () => {
      setResolving(null);
    },
  });
  return (
    <section className="page" aria-labelledby="incidents-title">
      <PageHeader titleId="incidents-title" title="Incidents">
        <Link to="/alerts">Alerts</Link>
      </PageHeader>
      <div className="filters" role="search" aria-label="Filter incidents">
        <FilterSelect
          id="incident-status"
          label="Status"
          value={status ?? 'all'}
          anyValue="all"
          anyLabel="Any status"
          options={incidentStatuses}
          onChange={(value) => {
            setParams(new URLSearchParams({ status: value }), { replace: true });
          }}
        />
      </div>
      <PagedQueryStates
        query={incidents}
        loadingLabel="Loading incidents"
        empty={
          <EmptyState title="No incidents">
            <p>An incident opens when an asset's first alert fires, and gathers the alerts that follow.</p>
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
            <table className="data-table" aria-label="Incidents">
              <thead>
                <tr>
                  <th scope="col">Severity</th>
                  <th scope="col">Title</th>
                  <th scope="col">Alerts</th>
                  <th scope="col">Status</th>
                  <th scope="col">Opened</th>
                  <th scope="col">Review</th>
                  {canMutate && <th scope="col">Actions</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((i) => (
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
                    <td>
                      <Link to={`/incidents/${encodeURIComponent(i.id)}`} aria-label={`Review ${i.title}`}>
                        Review
                      </Link>
                    </td>
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
        )}
      </PagedQueryStates>
      <ConfirmMutationDialog
        record={resolving}
        title={() => 'Resolve incident'}
        confirmLabel="Resolve"
        mutation={resolve}
        onClose={() => {
          setResolving(null);
        }}
      >
        {(incident) => (
          <>
            <p>{incident.title}</p>
            <p>Its alerts stay as they are; the asset's next alert opens a new incident.</p>
          </>
        )}
      </ConfirmMutationDialog>
    </section>
  );
}
