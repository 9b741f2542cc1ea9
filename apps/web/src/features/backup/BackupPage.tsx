/**
 * Backups (Proxmox Backup Server): per backup server, its datastores with usage and maintenance mode, and the
 * last backup per group in every namespace.
 */
import { useQuery } from '@tanstack/react-query';
import type { Asset } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { formatBytes } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import './backup.css';

function usageClass(used: number, total: number): string {
  const share = used / total;
  return share > 0.9 ? 'usage-bar usage-high' : share > 0.75 ? 'usage-bar usage-mid' : 'usage-bar';
}

function Datastores({ server }: { server: Asset }) {
  const { t, rich } = useT();
  const stores = useQuery({
    queryKey: ['backup', server.id],
    queryFn: async () => (await hub.call('backup.datastores', { params: { id: server.id } })).data,
    refetchInterval: 60_000,
  });
  return (
    <section aria-labelledby={`backup-${server.id}`} className="backup-server">
      <h2 id={`backup-${server.id}`} translate="no">
        {server.name}
      </h2>
      {stores.isPending && <Loading label={t('backup.loadingDatastores')} />}
      {stores.isError && <ErrorNotice error={stores.error} retry={() => void stores.refetch()} />}
      {stores.isSuccess &&
        stores.data.datastores.map((d) => (
          <article key={d.store} className="datastore" aria-label={t('backup.datastore', { store: d.store })}>
            <h3 translate="no">
              {d.store}
              {d.comment && <span className="muted"> — {d.comment}</span>}
            </h3>
            {d.maintenance && (
              <p className="datastore-maintenance" role="status">
                {t('backup.maintenance', { mode: d.maintenance.mode })}
                {d.maintenance.message && <span translate="no"> ({d.maintenance.message})</span>}
              </p>
            )}
            {d.error !== null && (
              <p className="field-error" translate="no">
                {d.error}
              </p>
            )}
            {d.total !== null && d.used !== null && (
              <p>
                <meter
                  className={usageClass(d.used, d.total)}
                  min={0}
                  max={d.total}
                  value={d.used}
                  aria-label={t('backup.usageLabel', { store: d.store })}
                />{' '}
                {t('backup.usage', { used: formatBytes(d.used), total: formatBytes(d.total) })}
                {d.avail !== null && (
                  <span className="muted">{t('backup.free', { avail: formatBytes(d.avail) })}</span>
                )}
                {d.estimated_full_at && (
                  <span className="muted">
                    {rich('backup.fullAround', { time: <Time value={d.estimated_full_at} /> })}
                  </span>
                )}
              </p>
            )}
            {d.groups.length > 0 && (
              <table className="data-table" aria-label={t('backup.groups', { store: d.store })}>
                <thead>
                  <tr>
                    <th scope="col">{t('backup.namespace')}</th>
                    <th scope="col">{t('backup.group')}</th>
                    <th scope="col">{t('backup.lastBackup')}</th>
                    <th scope="col">{t('backup.snapshots')}</th>
                    <th scope="col">{t('backup.owner')}</th>
                  </tr>
                </thead>
                <tbody>
                  {d.groups.map((g) => (
                    <tr key={`${g.namespace}/${g.type}/${g.id}`}>
                      <td>
                        {g.namespace === '' ? (
                          <span className="muted">{t('backup.root')}</span>
                        ) : (
                          <span translate="no">{g.namespace}</span>
                        )}
                      </td>
                      <th scope="row" translate="no">
                        {g.type}/{g.id}
                      </th>
                      <td>
                        <Time value={g.last_backup_at} empty={t('time.never')} />
                      </td>
                      <td className="cell-number">{g.count}</td>
                      <td translate="no">{g.owner ?? '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )}
          </article>
        ))}
    </section>
  );
}

export function BackupPage() {
  const { t } = useT();
  const servers = useQuery({
    queryKey: ['backup', 'servers'],
    queryFn: async () =>
      (await hub.call('assets.list', { query: { per_page: 500 } })).data.filter(
        (a) => a.connector?.kind === 'backup',
      ),
  });
  return (
    <section className="page" aria-labelledby="backup-title">
      <div className="page-header">
        <h1 id="backup-title">{t('nav.backups')}</h1>
      </div>
      {servers.isPending && <Loading label={t('backup.loadingServers')} />}
      {servers.isError && <ErrorNotice error={servers.error} retry={() => void servers.refetch()} />}
      {servers.isSuccess && servers.data.length === 0 && (
        <EmptyState title={t('backup.noServers')}>
          <p>{t('backup.noServersText')}</p>
        </EmptyState>
      )}
      {servers.isSuccess && servers.data.map((server) => <Datastores key={server.id} server={server} />)}
    </section>
  );
}
