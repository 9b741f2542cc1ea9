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
import type { AssetTabProps } from '../../pages/asset/asset-tabs';
import { useLiveInterval } from '../events/LiveEvents';
import { assetUpdatesKey, updatesKey } from './updates-keys';
import { agoText } from './updates-text';

const columns: RowsColumn<AvailableUpdate>[] = [
  {
    key: 'name',
    label: 'Package',
    cell: (u) => (
      <>
        {u.name}
        {u.security && <span className="chip severity-critical">security</span>}
      </>
    ),
    sortValue: (u) => u.name,
  },
  { key: 'current', label: 'Installed', cell: (u) => u.current_version ?? '—' },
  { key: 'new', label: 'Available', cell: (u) => u.new_version },
  { key: 'source', label: 'From', cell: (u) => u.source ?? '—', sortValue: (u) => u.source ?? '' },
  {
    key: 'security',
    label: 'Security',
    cell: (u) => (u.security ? 'yes' : 'no'),
    sortValue: (u) => (u.security ? 0 : 1),
  },
];

export function AssetUpdatesTab({ asset }: AssetTabProps) {
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
  if (report.isPending) return <Loading label="Loading the available updates" />;
  if (report.isError) return <ErrorNotice error={report.error} retry={() => void report.refetch()} />;
  const r = report.data;
  const busy = refresh.isPending || start.isPending;
  return (
    <section aria-label={`Updates of ${asset.name}`}>
      {canMutate && r.supported && (
        <div className="row-actions">
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              refresh.mutate();
            }}
          >
            {refresh.isPending ? 'Checking…' : 'Check now'}
          </button>
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              start.mutate('dry_run');
            }}
          >
            Dry run
          </button>
          <button
            type="button"
            className="primary"
            disabled={busy}
            onClick={() => {
              setConfirmApply(true);
            }}
          >
            Apply
          </button>
          <Link to={`/updates/runs/new?asset=${encodeURIComponent(asset.id)}`}>More options</Link>
        </div>
      )}
      {refresh.isError && <ErrorNotice error={refresh.error} />}
      {start.isError && !confirmApply && <ErrorNotice error={start.error} />}
      <dl className="facts" aria-label="Update status">
        <div>
          <dt>Available updates</dt>
          <dd data-testid="updates-count">
            {r.updates ?? '—'}
            {r.truncated && '+'}
          </dd>
        </div>
        <div>
          <dt>Security updates</dt>
          <dd className={r.security_updates ? 'state-bad' : undefined} data-testid="security-count">
            {r.security_updates ?? '—'}
          </dd>
        </div>
        <div>
          <dt>Reboot</dt>
          <dd className={r.reboot_required ? 'state-bad' : undefined}>
            {r.reboot_required === null ? '—' : r.reboot_required ? 'Required' : 'Not required'}
          </dd>
        </div>
        <div>
          <dt>Last patched</dt>
          <dd>
            {agoText(r.last_patched_at)}
            {r.last_patched_at && (
              <span className="muted small">
                {' '}
                (<Time value={r.last_patched_at} />)
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt>Last checked</dt>
          <dd>
            <Time value={r.checked_at} empty="never" />
          </dd>
        </div>
        <div>
          <dt>Package manager</dt>
          <dd>{r.manager ?? (r.supported ? '—' : 'none the hub can drive')}</dd>
        </div>
      </dl>
      {r.error && <p className="result-error">The last check failed: {r.error}</p>}
      <RowsTable
        label="Available updates"
        rows={r.packages}
        columns={columns}
        rowKey={(u, index) => `${u.name}:${u.arch ?? ''}:${String(index)}`}
        filterText={(u) => `${u.name} ${u.new_version} ${u.source ?? ''}`}
        initialSort={{ key: 'security', descending: false }}
        emptyTitle={
          r.supported
            ? r.checked_at
              ? 'Up to date'
              : 'Not reported yet'
            : 'No package manager the hub can drive on this machine'
        }
      />
      <ConfirmDialog
        open={confirmApply}
        title={`Apply all updates on ${asset.name}?`}
        confirmLabel="Apply updates"
        busy={start.isPending}
        onConfirm={() => {
          start.mutate('apply');
        }}
        onClose={() => {
          setConfirmApply(false);
          start.reset();
        }}
      >
        <p>
          The package manager installs {r.updates ?? 'the available'} update(s) now. The machine is not
          rebooted.
        </p>
        {start.isError && <ErrorNotice error={start.error} />}
      </ConfirmDialog>
    </section>
  );
}
