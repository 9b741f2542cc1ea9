/**
 * The asset page's Updates tab: this machine's available updates as last reported (security ones marked),
 * whether it needs a reboot, when it was last patched and checked; for roles that may, a refresh, and a dry
 * run or (after a confirmation) an apply of all updates here, which opens the run's page.
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import type { AvailableUpdate, UpdateRunMode } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { RowsTable, type RowsColumn } from '../../components/RowsTable';
import { Time } from '../../components/Time';
import { useResourceMutation } from '../../components/use-resource-mutation';
import { useT } from '../../i18n/I18nProvider';
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { useLiveInterval } from '../events/LiveEvents';
import { assetUpdatesKey, updatesKey } from './updates-keys';
import { agoText } from './updates-text';

function useColumns(): RowsColumn<AvailableUpdate>[] {
  const { t } = useT();
  return [
    {
      key: 'name',
      label: t('updates.packageColumn', { column: 'name' }),
      cell: (u) => (
        <>
          <span translate="no">{u.name}</span>
          {u.security && <span className="chip severity-critical">{t('updates.securityChip')}</span>}
        </>
      ),
      sortValue: (u) => u.name,
    },
    {
      key: 'current',
      label: t('updates.packageColumn', { column: 'current' }),
      cell: (u) => <span translate="no">{u.current_version ?? '—'}</span>,
    },
    {
      key: 'new',
      label: t('updates.packageColumn', { column: 'new' }),
      cell: (u) => <span translate="no">{u.new_version}</span>,
    },
    {
      key: 'source',
      label: t('updates.packageColumn', { column: 'source' }),
      cell: (u) => <span translate="no">{u.source ?? '—'}</span>,
      sortValue: (u) => u.source ?? '',
    },
    {
      key: 'security',
      label: t('updates.packageColumn', { column: 'security' }),
      cell: (u) => t('updates.yesNo', { value: u.security ? 'yes' : 'no' }),
      sortValue: (u) => (u.security ? 0 : 1),
    },
  ];
}

export function AssetUpdatesTab({ asset }: AssetTabProps) {
  const { t } = useT();
  const columns = useColumns();
  const { canMutate } = useSession();
  const navigate = useNavigate();
  const [confirmApply, setConfirmApply] = useState(false);
  const report = useQuery({
    queryKey: assetUpdatesKey(asset.id),
    queryFn: async () => (await hub.call('updates.asset', { params: { id: asset.id } })).data,
    refetchInterval: useLiveInterval(60_000),
  });
  const refresh = useResourceMutation({
    mutationFn: async () => (await hub.call('updates.refresh', { params: { id: asset.id } })).data,
    invalidates: [updatesKey],
  });
  const start = useResourceMutation({
    mutationFn: async (mode: UpdateRunMode) =>
      (
        await hub.call('updates.runs.create', {
          body: { targets: [asset.id], mode, selection: 'all', start: 'now' },
        })
      ).data,
    invalidates: [updatesKey],
    onSuccess: async (run) => {
      setConfirmApply(false);
      await navigate(`/updates/runs/${encodeURIComponent(run.id)}`);
    },
  });
  if (report.isPending) return <Loading label={t('updates.loadingAvailable')} />;
  if (report.isError) return <ErrorNotice error={report.error} retry={() => void report.refetch()} />;
  const r = report.data;
  const busy = refresh.isPending || start.isPending;
  return (
    <section aria-label={t('updates.updatesOf', { name: asset.name })}>
      {canMutate && r.supported && (
        <div className="row-actions">
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              refresh.mutate();
            }}
          >
            {refresh.isPending ? t('updates.checking') : t('updates.checkNow')}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              start.mutate('dry_run');
            }}
          >
            {t('updates.mode', { mode: 'dry_run' })}
          </button>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => {
              setConfirmApply(true);
            }}
          >
            {t('updates.mode', { mode: 'apply' })}
          </button>
          <Link to={`/updates/runs/new?asset=${encodeURIComponent(asset.id)}`}>
            {t('updates.moreOptions')}
          </Link>
        </div>
      )}
      {refresh.isError && <ErrorNotice error={refresh.error} />}
      {start.isError && !confirmApply && <ErrorNotice error={start.error} />}
      <dl className="facts" aria-label={t('updates.statusFacts')}>
        <div>
          <dt>{t('updates.assetFact', { fact: 'available' })}</dt>
          <dd data-testid="updates-count">
            {r.updates ?? '—'}
            {r.truncated && '+'}
          </dd>
        </div>
        <div>
          <dt>{t('updates.assetFact', { fact: 'security' })}</dt>
          <dd className={r.security_updates ? 'state-bad' : undefined} data-testid="security-count">
            {r.security_updates ?? '—'}
          </dd>
        </div>
        <div>
          <dt>{t('updates.assetFact', { fact: 'reboot' })}</dt>
          <dd className={r.reboot_required ? 'state-bad' : undefined}>
            {r.reboot_required === null
              ? '—'
              : t('updates.rebootState', { required: r.reboot_required ? 'yes' : 'no' })}
          </dd>
        </div>
        <div>
          <dt>{t('updates.assetFact', { fact: 'patched' })}</dt>
          <dd>
            {r.last_patched_at ? (
              <time dateTime={r.last_patched_at}>{agoText(r.last_patched_at)}</time>
            ) : (
              t('time.never')
            )}
            {r.last_patched_at && (
              <span className="muted small">
                {' '}
                (<Time value={r.last_patched_at} />)
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('updates.assetFact', { fact: 'checked' })}</dt>
          <dd>
            <Time value={r.checked_at} empty={t('time.never')} />
          </dd>
        </div>
        <div>
          <dt>{t('updates.assetFact', { fact: 'manager' })}</dt>
          <dd translate={r.manager ? 'no' : undefined}>
            {r.manager ?? (r.supported ? '—' : t('updates.noManager'))}
          </dd>
        </div>
      </dl>
      {r.error && <p className="result-error">{t('updates.lastCheckFailed', { error: r.error })}</p>}
      <RowsTable
        label={t('updates.available')}
        rows={r.packages}
        columns={columns}
        rowKey={(u, index) => `${u.name}:${u.arch ?? ''}:${String(index)}`}
        filterText={(u) => `${u.name} ${u.new_version} ${u.source ?? ''}`}
        initialSort={{ key: 'security', descending: false }}
        emptyTitle={
          r.supported
            ? r.checked_at
              ? t('updates.upToDate')
              : t('updates.notReportedYet')
            : t('updates.noManagerHere')
        }
      />
      <ConfirmDialog
        open={confirmApply}
        title={t('updates.applyTitle', { name: asset.name })}
        confirmLabel={t('updates.submit', { start: 'now', mode: 'apply' })}
        busy={start.isPending}
        onConfirm={() => {
          start.mutate('apply');
        }}
        onClose={() => {
          setConfirmApply(false);
          start.reset();
        }}
      >
        <p>{t('updates.applyText', { known: r.updates === null ? 'no' : 'yes', n: r.updates ?? 0 })}</p>
        {start.isError && <ErrorNotice error={start.error} />}
      </ConfirmDialog>
    </section>
  );
}
