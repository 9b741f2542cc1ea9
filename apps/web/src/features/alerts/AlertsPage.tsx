/**
 * Alerts the caller may see, newest first, filtered by status (active by default) and severity, paged;
 * acknowledge and silence for roles that may change things. Refreshed every 10 s.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useSearchParams } from 'react-router';
import { alertSeverities, alertStatuses, type Alert } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { FilterSelect } from '../../components/FilterSelect';
import { ErrorNotice } from '../../components/ErrorNotice';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { Time } from '../../components/Time';
import { formatTime } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { useLiveInterval } from '../events/LiveEvents';
import { SeverityBadge } from './SeverityBadge';
import { SilenceDialog } from './SilenceDialog';
import { MaintenanceNotice } from '../maintenance/MaintenanceNotice';

const perPage = 50;
const statusFilters = ['active', ...alertStatuses] as const;
type StatusFilter = (typeof statusFilters)[number] | 'all';
const columns = ['severity', 'rule', 'asset', 'summary', 'status', 'fired'] as const;
type SeverityFilter = (typeof alertSeverities)[number] | '';

function isStatus(value: string): value is (typeof statusFilters)[number] {
  return (statusFilters as readonly string[]).includes(value);
}

function isSeverity(value: string): value is (typeof alertSeverities)[number] {
  return (alertSeverities as readonly string[]).includes(value);
}

function AlertActions({ alert, onSilence }: { alert: Alert; onSilence: () => void }) {
  const { t } = useT();
  const acknowledge = useResourceMutation({
    mutationFn: async () => (await hub.call('alerts.acknowledge', { params: { id: alert.id } })).data,
    invalidates: [['alerts']],
  });
  if (alert.status === 'resolved') return null;
  return (
    <div className="row-actions">
      {alert.status === 'firing' && (
        <button
          type="button"
          disabled={acknowledge.isPending}
          onClick={() => {
            acknowledge.mutate();
          }}
        >
          {t('alerts.acknowledge')}
        </button>
      )}
      <button type="button" onClick={onSilence}>
        {t('alerts.silence')}
      </button>
      {acknowledge.isError && <ErrorNotice error={acknowledge.error} />}
    </div>
  );
}

export function AlertsPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const [params, setParams] = useSearchParams();
  const rawStatus = params.get('status') ?? 'active';
  const status: StatusFilter = isStatus(rawStatus) ? rawStatus : 'all';
  const rawSeverity = params.get('severity') ?? '';
  const severity: SeverityFilter = isSeverity(rawSeverity) ? rawSeverity : '';
  const asset = params.get('asset') ?? '';
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const [silencing, setSilencing] = useState<Alert | null>(null);
  const setParam = (name: string, value: string) => {
    const next = new URLSearchParams(params);
    next.set(name, value);
    if (name !== 'page') next.delete('page');
    setParams(next, { replace: true });
  };
  const alerts = useQuery({
    queryKey: ['alerts', 'list', status, severity, asset, page],
    queryFn: () =>
      hub.call('alerts.list', {
        query: {
          page,
          per_page: perPage,
          ...(status !== 'all' ? { status } : {}),
          ...(severity !== '' ? { severity } : {}),
          ...(asset !== '' ? { asset } : {}),
        },
      }),
    placeholderData: keepPreviousData,
    // Alert and incident events refresh it at once (the shell's feed); polling is the fallback.
    refetchInterval: useLiveInterval(10_000),
  });
  return (
    <section className="page" aria-labelledby="alerts-title">
      <PageHeader titleId="alerts-title" title={t('alerts.title')}>
        <Link to="/alerts/rules">{t('alerts.rules')}</Link>
        <Link to="/incidents">{t('alerts.incidents')}</Link>
      </PageHeader>
      <MaintenanceNotice label={t('alerts.maintenance')} />
      <div className="filters" role="search" aria-label={t('alerts.filters')}>
        <FilterSelect
          id="alert-status"
          label={t('alerts.status')}
          value={status}
          anyValue="all"
          anyLabel={t('alerts.anyStatus')}
          options={statusFilters}
          optionLabel={(value) => t('alert.status', { status: value })}
          onChange={(value) => {
            setParam('status', value);
          }}
        />
        <FilterSelect
          id="alert-severity"
          label={t('alerts.severity')}
          value={severity}
          anyLabel={t('alerts.anySeverity')}
          options={alertSeverities}
          optionLabel={(value) => t('alert.severity', { severity: value })}
          onChange={(value) => {
            setParam('severity', value);
          }}
        />
      </div>
      <PagedQueryStates
        query={alerts}
        loadingLabel={t('alerts.loading')}
        empty={
          <EmptyState title={t('alerts.none')}>
            <p>{t('alerts.noneText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={(p) => {
          setParam('page', String(p));
        }}
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('alerts.title')}>
              <thead>
                <tr>
                  {columns.map((column) => (
                    <th key={column} scope="col">
                      {t('alerts.column', { column })}
                    </th>
                  ))}
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((a) => (
                  <tr key={a.id} data-alert-id={a.id}>
                    <td>
                      <SeverityBadge severity={a.severity} />
                    </td>
                    <th scope="row" translate="no">
                      {a.rule_name}
                    </th>
                    <td>
                      <Link to={`/assets/${encodeURIComponent(a.asset_id)}`} translate="no">
                        {a.asset_name}
                      </Link>
                    </td>
                    <td className="cell-wide" translate="no">
                      {a.summary}
                    </td>
                    <td className="alert-status">
                      {t('alert.status', { status: a.status })}
                      {a.status === 'silenced' && a.silenced_until !== null && (
                        <span className="muted">
                          {' '}
                          {t('alerts.until', { time: formatTime(a.silenced_until) })}
                        </span>
                      )}
                    </td>
                    <td>
                      <Time value={a.fired_at} />
                    </td>
                    {canMutate && (
                      <td>
                        <AlertActions
                          alert={a}
                          onSilence={() => {
                            setSilencing(a);
                          }}
                        />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </PagedQueryStates>
      {silencing && (
        <SilenceDialog
          alert={silencing}
          onClose={() => {
            setSilencing(null);
          }}
        />
      )}
    </section>
  );
}
