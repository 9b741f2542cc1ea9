/**
 * Backups (Proxmox Backup Server): per backup server, its datastores with usage and maintenance mode, and the
 * last backup per group in every namespace.
 */
import { useQuery } from '@tanstack/react-query';
import type { Asset, BackupMaintenance } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatBytes, formatTime } from '../../components/units';
import './backup.css';

function usageClass(used: number, total: number): string {
  const share = used / total;
  return share > 0.9 ? 'usage-bar usage-high' : share > 0.75 ? 'usage-bar usage-mid' : 'usage-bar';
}

/** What a maintenance mode means for the person reading the page. */
function maintenanceText(maintenance: BackupMaintenance): string {
  const meaning =
    maintenance.mode === 'read-only'
      ? 'read-only: backups are refused, restores work'
      : maintenance.mode === 'offline'
        ? 'offline: neither backups nor restores work'
        : maintenance.mode;
  return `Maintenance mode ${meaning}${maintenance.message ? ` (${maintenance.message})` : ''}`;
}

function Datastores({ server }: { server: Asset }) {
  const stores = useQuery({
    queryKey: ['backup', server.id],
    queryFn: async () => (await hub.call('backup.datastores', { params: { id: server.id } })).data,
    refetchInterval: 60_000,
  });
  return (
    <section aria-labelledby={`backup-${server.id}`} className="backup-server">
      <h2 id={`backup-${server.id}`}>{server.name}</h2>
      {stores.isPending && <Loading label="Loading datastores" />}
      {stores.isError && <ErrorNotice error={stores.error} retry={() => void stores.refetch()} />}
      {stores.isSuccess &&
        stores.data.datastores.map((d) => (
          <article key={d.store} className="datastore" aria-label={`Datastore ${d.store}`}>
            <h3>
              {d.store}
              {d.comment && <span className="muted"> — {d.comment}</span>}
            </h3>
            {d.maintenance && (
              <p className="datastore-maintenance" role="status">
                {maintenanceText(d.maintenance)}
              </p>
            )}
            {d.error !== null && <p className="field-error">{d.error}</p>}
            {d.total !== null && d.used !== null && (
              <p>
                <meter
                  className={usageClass(d.used, d.total)}
                  min={0}
                  max={d.total}
                  value={d.used}
                  aria-label={`${d.store} usage`}
                />{' '}
                {formatBytes(d.used)} used of {formatBytes(d.total)}
                {d.avail !== null && <span className="muted">, {formatBytes(d.avail)} free</span>}
                {d.estimated_full_at && (
                  <span className="muted"> · full around {formatTime(d.estimated_full_at)}</span>
                )}
              </p>
            )}
            {d.groups.length > 0 && (
              <table className="data-table" aria-label={`Backup groups in ${d.store}`}>
                <thead>
                  <tr>
                    <th scope="col">Namespace</th>
                    <th scope="col">Group</th>
                    <th scope="col">Last backup</th>
                    <th scope="col">Snapshots</th>
                    <th scope="col">Owner</th>
                  </tr>
                </thead>
                <tbody>
                  {d.groups.map((g) => (
                    <tr key={`${g.namespace}/${g.type}/${g.id}`}>
                      <td>{g.namespace === '' ? <span className="muted">root</span> : g.namespace}</td>
                      <th scope="row">
                        {g.type}/{g.id}
                      </th>
                      <td>{g.last_backup_at ? formatTime(g.last_backup_at) : 'never'}</td>
                      <td className="cell-number">{g.count}</td>
                      <td>{g.owner ?? '—'}</td>
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
        <h1 id="backup-title">Backups</h1>
      </div>
      {servers.isPending && <Loading label="Loading backup servers" />}
      {servers.isError && <ErrorNotice error={servers.error} retry={() => void servers.refetch()} />}
      {servers.isSuccess && servers.data.length === 0 && (
        <EmptyState title="No backup servers">
          <p>Add a Proxmox Backup Server connector (Admin → Connectors) to see its datastores here.</p>
        </EmptyState>
      )}
      {servers.isSuccess && servers.data.map((server) => <Datastores key={server.id} server={server} />)}
    </section>
  );
}
