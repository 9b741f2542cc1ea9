/**
 * Package updates across the fleet (`/updates`): per machine, how many updates its package manager offers,
 * how many are security updates, whether it needs a reboot, how long since it was last patched and when it
 * last reported; filtered by need, security and group (kept in the address); one machine's report refreshed
 * on demand, and a run started, for roles that may.
 */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link, useNavigate, useSearchParams } from 'react-router';
import type { AssetUpdateStatus } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { FilterSelect } from '../../components/FilterSelect';
import { PageHeader } from '../../components/PageHeader';
import { PagedQueryStates } from '../../components/QueryStates';
import { useGroupList } from '../../components/TargetsPicker';
import { formatTime } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useLiveInterval } from '../events/LiveEvents';
import { fleetKey, updatesKey } from './updates-keys';
import { agoText, fleetFiltersOf, fleetParams, fleetQuery, type FleetFilters } from './updates-text';
import { UpdatesNav } from './UpdatesNav';

const perPage = 100;

function Ago({ iso }: { iso: string | null }) {
  const { t } = useT();
  if (!iso) return <span className="muted">{t('time.never')}</span>;
  return (
    <time dateTime={iso} title={formatTime(iso)}>
      {agoText(iso)}
    </time>
  );
}

function UpdatesCell({ row }: { row: AssetUpdateStatus }) {
  const { t } = useT();
  if (!row.supported) return <span className="muted">{t('updates.notSupported')}</span>;
  if (row.updates === null) return <span className="muted">{t('updates.notReported')}</span>;
  return (
    <>
      {row.updates}
      {row.truncated && '+'}
    </>
  );
}

const needOptions = ['needs', 'security'] as const;

function Filters({ filters, onChange }: { filters: FleetFilters; onChange: (next: FleetFilters) => void }) {
  const { t } = useT();
  const groups = useGroupList();
  const names = new Map(groups.data?.map((g) => [g.id, g.name]));
  return (
    <div className="filters" role="search" aria-label={t('updates.filters')}>
      <FilterSelect
        id="updates-need"
        label={t('updates.show')}
        value={filters.securityOnly ? 'security' : filters.needsUpdates ? 'needs' : ''}
        anyLabel={t('updates.allMachines')}
        options={needOptions}
        optionLabel={(need) => t('updates.need', { need })}
        onChange={(value) => {
          onChange({ ...filters, needsUpdates: value === 'needs', securityOnly: value === 'security' });
        }}
      />
      <FilterSelect
        id="updates-group"
        label={t('updates.group')}
        value={filters.group}
        anyLabel={t('updates.anyGroup')}
        options={groups.data?.map((g) => g.id) ?? (filters.group ? [filters.group] : [])}
        optionLabel={(id) => names.get(id) ?? id}
        onChange={(value) => {
          onChange({ ...filters, group: value });
        }}
      />
    </div>
  );
}

export function UpdatesPage() {
  const { t } = useT();
  const { canMutate } = useSession();
  const navigate = useNavigate();
  const [params, setParams] = useSearchParams();
  const filters = fleetFiltersOf(params);
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const query = fleetQuery(filters);
  const fleet = useQuery({
    queryKey: [...fleetKey(query), page],
    queryFn: () => hub.call('updates.fleet', { query: { ...query, page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    // `updates.changed` refreshes it at once (the shell's feed); polling is the fallback.
    refetchInterval: useLiveInterval(30_000),
  });
  const refresh = useResourceMutation({
    mutationFn: async (row: AssetUpdateStatus) =>
      (await hub.call('updates.refresh', { params: { id: row.asset_id } })).data,
    invalidates: [updatesKey],
    notice: (data) => t('updates.refreshed', { name: data.asset_name, n: data.updates ?? 0 }),
  });
  return (
    <section className="page" aria-labelledby="updates-title">
      <PageHeader
        titleId="updates-title"
        title={t('updates.title')}
        count={fleet.isSuccess ? t('updates.machineCount', { n: fleet.data.meta.total }) : undefined}
        action={
          canMutate && {
            label: t('updates.newRun'),
            onClick: () => {
              void navigate('/updates/runs/new');
            },
          }
        }
      />
      <UpdatesNav />
      <Filters
        filters={filters}
        onChange={(next) => {
          setParams(fleetParams(next), { replace: true });
        }}
      />
      {refresh.isError && <ErrorNotice error={refresh.error} />}
      {refresh.notice && (
        <p className="notice ok" role="status">
          {refresh.notice}
        </p>
      )}
      <PagedQueryStates
        query={fleet}
        loadingLabel={t('updates.loadingFleet')}
        empty={
          <EmptyState title={t('updates.noMachines')}>
            <p>{t('updates.noMachinesText')}</p>
          </EmptyState>
        }
        page={page}
        perPage={perPage}
        onPage={(p) => {
          const next = fleetParams(filters);
          next.set('page', String(p));
          setParams(next, { replace: true });
        }}
      >
        {(rows) => (
          <div className="rows-scroll">
            <table className="data-table" aria-label={t('updates.fleetTable')}>
              <thead>
                <tr>
                  {(['machine', 'updates', 'security', 'reboot', 'patched', 'checked'] as const).map(
                    (column) => (
                      <th key={column} scope="col">
                        {t('updates.fleetColumn', { column })}
                      </th>
                    ),
                  )}
                  {canMutate && <th scope="col">{t('common.actions')}</th>}
                </tr>
              </thead>
              <tbody>
                {rows.map((row) => (
                  <tr key={row.asset_id} data-asset-id={row.asset_id}>
                    <th scope="row" translate="no">
                      <Link to={`/assets/${encodeURIComponent(row.asset_id)}/updates`}>{row.asset_name}</Link>
                      {row.manager && <span className="chip">{row.manager}</span>}
                    </th>
                    <td className="cell-number">
                      <UpdatesCell row={row} />
                    </td>
                    <td className="cell-number">
                      {row.security_updates === null ? (
                        <span className="muted">—</span>
                      ) : (
                        <span className={row.security_updates > 0 ? 'state-bad' : undefined}>
                          {row.security_updates}
                        </span>
                      )}
                    </td>
                    <td>
                      {row.reboot_required ? (
                        <span className="state-bad">{t('updates.reboot', { required: 'yes' })}</span>
                      ) : (
                        <span className="muted">
                          {row.reboot_required === false ? t('updates.reboot', { required: 'no' }) : '—'}
                        </span>
                      )}
                    </td>
                    <td>
                      <Ago iso={row.last_patched_at} />
                    </td>
                    <td>
                      <Ago iso={row.checked_at} />
                      {row.error && (
                        <span className="result-error small" title={row.error}>
                          {' '}
                          {t('updates.checkFailed', { error: row.error })}
                        </span>
                      )}
                    </td>
                    {canMutate && (
                      <td>
                        {row.supported && (
                          <button
                            type="button"
                            className="small"
                            aria-label={t('updates.refreshNamed', { name: row.asset_name })}
                            disabled={refresh.isPending && refresh.variables.asset_id === row.asset_id}
                            onClick={() => {
                              refresh.mutate(row);
                            }}
                          >
                            {t('updates.refresh')}
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
    </section>
  );
}
