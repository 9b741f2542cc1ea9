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
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';
import { SeverityBadge } from '../alerts/SeverityBadge';
import { useLiveInterval } from '../events/LiveEvents';

const perPage = 50;

function isStatus(value: string): value is (typeof incidentStatuses)[number] {
  return (incidentStatuses as readonly string[]).includes(value);
}

export function IncidentsPage() {
  const { t } = useT();
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
      <PageHeader titleId="incidents-title" title={t('nav.incidents')}>
        <Link to="/alerts">{t('nav.alerts')}</Link>
      </PageHeader>
      <div className="filters" role="search" aria-label={t('incidents.filters')}>
        <FilterSelect
          id="incident-status"
          label={t('incidents.status')}
          value={status ?? 'all'}
          anyValue="all"
          anyLabel={t('incidents.anyStatus')}
          options={incidentStatuses}
          optionLabel={(value) => t('incidents.statusValue', { status: value })}
          onChange={(value) => {
            setParams(new URLSearchParams({ status: value }), { replace: true });
          }}
        />
      </div>
      <PagedQueryStates
        query={incidents}
        loadingLabel={t('incidents.loading')}
        empty={
          <EmptyState title={t('incidents.none')}>
            <p>{t('incidents.noneText')}</p>
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
            <table className="data-table" aria-label={t('nav.incidents')}>
              <thead>
                <tr>
                  <th scope="col">{t('incidents.severity')}</th>
                  <th scope="col">{t('incidents.titleColumn')}</th>
                  <th scope="col">{t('nav.alerts')}</th>
                  <th scope="col">{t('incidents.status')}</th>
                  <th scope="col">{t('incidents.opened')}</th>
                  <th scope="col">{t('incidents.review')}</th>
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((i) => (
                  <tr key={i.id} data-incident-id={i.id}>
                    <td>
                      <SeverityBadge severity={i.severity} />
                    </td>
                    <th scope="row" translate="no">
                      <Link to={`/alerts?status=all&asset=${encodeURIComponent(i.asset_id)}`}>{i.title}</Link>
                    </th>
                    <td className="cell-number">
                      {t('incidents.activeOf', { active: i.active_alerts, total: i.alert_count })}
                    </td>
                    <td>{t('incidents.statusValue', { status: i.status })}</td>
                    <td>
                      <Time value={i.opened_at} />
                    </td>
                    <td>
                      <Link
                        to={`/incidents/${encodeURIComponent(i.id)}`}
                        aria-label={t('incidents.reviewNamed', { title: i.title })}
                      >
                        {t('incidents.review')}
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
                            {t('incidents.resolve')}
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
        title={() => t('incidents.resolveTitle')}
        confirmLabel={t('incidents.resolve')}
        mutation={resolve}
        onClose={() => {
          setResolving(null);
        }}
      >
        {(incident) => (
          <>
            <p translate="no">{incident.title}</p>
            <p>{t('incidents.resolveText')}</p>
          </>
        )}
      </ConfirmMutationDialog>
    </section>
  );
}
