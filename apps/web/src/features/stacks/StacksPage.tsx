/** Stacks: each Portainer endpoint (environment) a connector brought, with the stacks Portainer runs there. */
import { useQuery } from '@tanstack/react-query';
import type { Asset } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { useConnectorAssets } from '../../components/use-connector-assets';
import { useT } from '../../i18n/I18nProvider';
import { StatusBadge } from '../assets/StatusBadge';

function EndpointStacks({ asset }: { asset: Asset }) {
  const { t } = useT();
  const stacks = useQuery({
    queryKey: ['stacks', asset.id],
    queryFn: () => hub.call('stacks.list', { params: { id: asset.id }, query: { per_page: 500 } }),
    refetchInterval: 30_000,
  });
  const titleId = `endpoint-${asset.id}`;
  return (
    <section className="endpoint-stacks" aria-labelledby={titleId}>
      <h2 id={titleId}>
        <span translate="no">{asset.name}</span> <StatusBadge status={asset.status} />
      </h2>
      {stacks.isPending && <Loading label={t('stacks.loadingStacks', { name: asset.name })} />}
      {stacks.isError && <ErrorNotice error={stacks.error} retry={() => void stacks.refetch()} />}
      {stacks.isSuccess && stacks.data.data.length === 0 && (
        <EmptyState title={t('stacks.none')}>
          <p>{t('stacks.noneText')}</p>
        </EmptyState>
      )}
      {stacks.isSuccess && stacks.data.data.length > 0 && (
        <div className="rows-scroll">
          <table className="data-table" aria-label={t('stacks.tableLabel', { name: asset.name })}>
            <thead>
              <tr>
                <th scope="col">{t('stacks.stack')}</th>
                <th scope="col">{t('stacks.type')}</th>
                <th scope="col">{t('stacks.status')}</th>
                <th scope="col">{t('stacks.variables')}</th>
                <th scope="col">{t('stacks.created')}</th>
                <th scope="col">{t('stacks.updated')}</th>
              </tr>
            </thead>
            <tbody>
              {stacks.data.data.map((s) => (
                <tr key={s.id}>
                  <th scope="row" translate="no">
                    {s.name}
                  </th>
                  <td translate="no">{s.type}</td>
                  <td>
                    <span className={s.status === 'active' ? 'state-ok' : 'muted'}>
                      {t('stacks.statusName', { status: s.status })}
                    </span>
                  </td>
                  <td className="cell-number">{s.env_count}</td>
                  <td>
                    <Time value={s.created_at} />
                  </td>
                  <td>
                    <Time value={s.updated_at} empty={t('time.never')} />
                  </td>
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
  const { t } = useT();
  const endpoints = useConnectorAssets('stacks_endpoint');
  return (
    <section className="page" aria-labelledby="stacks-title">
      <div className="page-header">
        <h1 id="stacks-title">{t('nav.stacks')}</h1>
      </div>
      {endpoints.isPending && <Loading label={t('stacks.loadingEndpoints')} />}
      {endpoints.isError && <ErrorNotice error={endpoints.error} retry={() => void endpoints.refetch()} />}
      {endpoints.isSuccess && endpoints.data.length === 0 && (
        <EmptyState title={t('stacks.noManager')}>
          <p>{t('stacks.noManagerText')}</p>
        </EmptyState>
      )}
      {endpoints.data?.map((asset) => (
        <EndpointStacks key={asset.id} asset={asset} />
      ))}
    </section>
  );
}
