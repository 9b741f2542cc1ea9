/** Stacks: each Portainer endpoint (environment) a connector brought, with the stacks Portainer runs there. */
import { useQuery } from '@tanstack/react-query';
import type { Asset } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../components/units';
import { useConnectorAssets } from '../../components/use-connector-assets';
import { StatusBadge } from '../assets/StatusBadge';

function EndpointStacks({ asset }: { asset: Asset }) {
  const stacks = useQuery({
    queryKey: ['stacks', asset.id],
    queryFn: () => hub.call('stacks.list', { params: { id: asset.id }, query: { per_page: 500 } }),
    refetchInterval: 30_000,
  });
  const titleId = `endpoint-${asset.id}`;
  return (
    <section className="endpoint-stacks" aria-labelledby={titleId}>
      <h2 id={titleId}>
        {asset.name} <StatusBadge status={asset.status} />
      </h2>
      {stacks.isPending && <Loading label={`Loading the stacks of ${asset.name}`} />}
      {stacks.isError && <ErrorNotice error={stacks.error} retry={() => void stacks.refetch()} />}
      {stacks.isSuccess && stacks.data.data.length === 0 && (
        <EmptyState title="No stacks">
          <p>Portainer manages no stack on this endpoint.</p>
        </EmptyState>
      )}
      {stacks.isSuccess && stacks.data.data.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label={`Stacks on ${asset.name}`}>
            <thead>
              <tr>
                <th scope="col">Stack</th>
                <th scope="col">Type</th>
                <th scope="col">Status</th>
                <th scope="col">Variables</th>
                <th scope="col">Created</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {stacks.data.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row">{s.name}</th>
                  <td>{s.type}</td>
                  <td>
                    <span className={s.status === 'active' ? 'state-ok' : 'muted'}>{s.status}</span>
                  </td>
                  <td className="cell-number">{s.env_count}</td>
                  <td>{formatTime(s.created_at)}</td>
                  <td>{s.updated_at ? formatTime(s.updated_at) : 'never'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export function StacksPage() {
  const endpoints = useConnectorAssets('stacks_endpoint');
  return (
    <section className="page" aria-labelledby="stacks-title">
      <div className="page-header">
        <h1 id="stacks-title">Stacks</h1>
      </div>
      {endpoints.isPending && <Loading label="Loading endpoints" />}
      {endpoints.isError && <ErrorNotice error={endpoints.error} retry={() => void endpoints.refetch()} />}
      {endpoints.isSuccess && endpoints.data.length === 0 && (
        <EmptyState title="No stack manager">
          <p>A Portainer connector (Admin, Connectors) brings its endpoints here.</p>
        </EmptyState>
      )}
      {endpoints.data?.map((asset) => (
        <EndpointStacks key={asset.id} asset={asset} />
      ))}
    </section>
  );
}
