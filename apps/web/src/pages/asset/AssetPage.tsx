/**
 * One asset: its name, status and actions on top, then its sections as tabs under `/assets/<id>/<tab>`
 * (overview, metrics, processes, services, network, disks, packages, updates, cron, users, logs, files). Each tab is
 * its own lazy chunk; the asset itself refreshes every 10 s, so its status changes without a reload.
 */
import { Suspense, useState } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, NavLink, Route, Routes, useNavigate, useParams } from 'react-router';
import type { Asset } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { ConfirmDialog } from '../../components/Dialog';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { AssetFormDialog } from '../../features/assets/AssetFormDialog';
import { StatusBadge } from '../../features/assets/StatusBadge';
import { useLiveInterval } from '../../features/events/LiveEvents';
import { assetKey } from './asset-keys';
import { assetTabs } from './asset-tabs';
import { MaintenanceNotice } from '../../features/maintenance/MaintenanceNotice';
import { useT } from '../../i18n/I18nProvider';

function AssetActions({ asset }: { asset: Asset }) {
  const { t } = useT();
  const client = useQueryClient();
  const navigate = useNavigate();
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const remove = useMutation({
    mutationFn: async () => (await hub.call('assets.delete', { params: { id: asset.id } })).data,
    onSuccess: async () => {
      setDeleting(false);
      client.removeQueries({ queryKey: assetKey(asset.id) });
      await client.invalidateQueries({ queryKey: ['assets'] });
      await client.invalidateQueries({ queryKey: ['status'] });
      void navigate('/assets');
    },
  });
  return (
    <div className="page-actions">
      <Link className="button" to={`/run?asset=${encodeURIComponent(asset.id)}`}>
        {t('assetPage.runCommand')}
      </Link>
      <button
        type="button"
        onClick={() => {
          setEditing(true);
        }}
      >
        {t('common.edit')}
      </button>
      <button
        type="button"
        className="danger"
        onClick={() => {
          setDeleting(true);
        }}
      >
        {t('common.delete')}
      </button>
      {editing && (
        <AssetFormDialog
          open
          asset={asset}
          onClose={() => {
            setEditing(false);
          }}
        />
      )}
      <ConfirmDialog
        open={deleting}
        title={t('assets.deleteTitle', { name: asset.name })}
        confirmLabel={t('assets.deleteConfirm')}
        busy={remove.isPending}
        onConfirm={() => {
          remove.mutate();
        }}
        onClose={() => {
          setDeleting(false);
          remove.reset();
        }}
      >
        <p>{t('assets.deleteText')}</p>
        {remove.isError && <ErrorNotice error={remove.error} />}
      </ConfirmDialog>
    </div>
  );
}

export function AssetPage() {
  const { t } = useT();
  const { id = '' } = useParams();
  const { canMutate } = useSession();
  // Refreshed when the event feed reports a change; polled as its fallback.
  const refetchInterval = useLiveInterval(10_000);
  const asset = useQuery({
    queryKey: assetKey(id),
    queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
    refetchInterval,
  });
  if (asset.isPending) return <Loading label={t('assetPage.loading')} />;
  if (asset.isError) return <ErrorNotice error={asset.error} retry={() => void asset.refetch()} />;
  const a = asset.data;
  return (
    <section className="page asset-page" aria-labelledby="asset-title">
      <p className="breadcrumbs">
        <Link to="/assets">{t('assets.title')}</Link> /
      </p>
      <div className="page-header">
        <h1 id="asset-title" translate="no">
          {a.name}
        </h1>
        <StatusBadge status={a.status} />
        {a.hub_host && <span className="chip">{t('assetPage.runsHub')}</span>}
        {canMutate && <AssetActions asset={a} />}
      </div>
      <MaintenanceNotice assetIds={[a.id]} label={t('assetPage.inMaintenance')} />
      <nav className="tabs" aria-label={t('assetPage.sections')}>
        <ul>
          {assetTabs.map((tab) => (
            <li key={tab.path}>
              <NavLink to={`/assets/${encodeURIComponent(a.id)}${tab.path === '' ? '' : `/${tab.path}`}`} end>
                {t(tab.label)}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="tab-panel">
        <Suspense fallback={<Loading label={t('assetPage.loadingSection')} />}>
          <Routes>
            {assetTabs.map(({ path, component: Tab }) =>
              path === '' ? (
                <Route key="overview" index element={<Tab asset={a} />} />
              ) : (
                <Route key={path} path={path} element={<Tab asset={a} />} />
              ),
            )}
            <Route path="*" element={<p>{t('assetPage.noSuchSection')}</p>} />
          </Routes>
        </Suspense>
      </div>
    </section>
  );
}
