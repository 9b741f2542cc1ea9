/**
 * One asset: for now its overview (status, agent, last seen, platform, addresses). The asset page's tabs
 * (metrics, processes, services, files…) are built on this file.
 */
import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { hub } from '../../api/client';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { lastSeenText } from '../../features/assets/asset-format';
import { StatusBadge } from '../../features/assets/StatusBadge';

export function AssetPage() {
  const { id = '' } = useParams();
  const asset = useQuery({
    queryKey: ['assets', 'detail', id],
    queryFn: async () => (await hub.call('assets.get', { params: { id } })).data,
    refetchInterval: 10_000,
  });
  if (asset.isPending) return <Loading label="Loading the asset" />;
  if (asset.isError) return <ErrorNotice error={asset.error} retry={() => void asset.refetch()} />;
  const a = asset.data;
  return (
    <section className="page" aria-labelledby="asset-title">
      <p className="breadcrumbs">
        <Link to="/assets">Assets</Link> /
      </p>
      <div className="page-header">
        <h1 id="asset-title">{a.name}</h1>
        <StatusBadge status={a.status} />
        {a.hub_host && <span className="chip">runs the hub</span>}
      </div>
      <dl className="facts">
        <div>
          <dt>Agent</dt>
          <dd>
            {a.agent
              ? `${a.agent.connected ? 'connected' : 'disconnected'}${a.agent.version ? `, version ${a.agent.version}` : ''}`
              : 'none (manual device)'}
          </dd>
        </div>
        <div>
          <dt>Last seen</dt>
          <dd>{a.last_seen_at ? <time dateTime={a.last_seen_at}>{lastSeenText(a)}</time> : 'never'}</dd>
        </div>
        <div>
          <dt>Platform</dt>
          <dd>{a.platform}</dd>
        </div>
        <div>
          <dt>Hostname</dt>
          <dd>{a.hostname ?? '—'}</dd>
        </div>
        <div>
          <dt>IP addresses</dt>
          <dd>{a.ip_addresses.length > 0 ? a.ip_addresses.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>MAC address</dt>
          <dd>{a.mac_address ?? '—'}</dd>
        </div>
        <div>
          <dt>Tags</dt>
          <dd>{a.tags.length > 0 ? a.tags.join(', ') : '—'}</dd>
        </div>
        <div>
          <dt>Source</dt>
          <dd>{a.source}</dd>
        </div>
      </dl>
      {a.description && <p>{a.description}</p>}
    </section>
  );
}
