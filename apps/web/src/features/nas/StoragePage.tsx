/** Storage: the pools and datasets of each TrueNAS a connector brought, with sizes as TrueNAS parsed them. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { Asset, NasPool } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { formatBytes, formatNumber } from '../../components/units';
import { pickAsset, useConnectorAssets } from '../../components/use-connector-assets';
import { useT } from '../../i18n/I18nProvider';
import { StatusBadge } from '../assets/StatusBadge';

const perPage = 100;

function bytes(value: number | null): string {
  return value === null ? '—' : formatBytes(value);
}

function PoolHealth({ pool }: { pool: NasPool }) {
  return (
    <span className={pool.healthy ? 'state-ok' : 'state-bad'} translate="no">
      {pool.status}
    </span>
  );
}

function Pools({ asset }: { asset: Asset }) {
  const { t } = useT();
  const pools = useQuery({
    queryKey: ['nas', asset.id, 'pools'],
    queryFn: () => hub.call('nas.pools', { params: { id: asset.id }, query: { per_page: 500 } }),
    refetchInterval: 30_000,
  });
  if (pools.isPending) return <Loading label={t('nas.loadingPools')} />;
  if (pools.isError) return <ErrorNotice error={pools.error} retry={() => void pools.refetch()} />;
  if (pools.data.data.length === 0) return <EmptyState title={t('nas.noPools')} />;
  return (
    <div className="rows-scroll">
      <table className="data-table" aria-label={t('nas.pools')}>
        <thead>
          <tr>
            <th scope="col">{t('nas.pool')}</th>
            <th scope="col">{t('nas.status')}</th>
            <th scope="col">{t('nas.size')}</th>
            <th scope="col">{t('nas.used')}</th>
            <th scope="col">{t('nas.free')}</th>
            <th scope="col">{t('nas.lastScan')}</th>
          </tr>
        </thead>
        <tbody>
          {pools.data.data.map((p) => (
            <tr key={p.id}>
              <th scope="row" translate="no">
                {p.name}
              </th>
              <td>
                <PoolHealth pool={p} />
                {p.status_detail && (
                  <div className="muted" translate="no">
                    {p.status_detail}
                  </div>
                )}
              </td>
              <td className="cell-number" translate="no">
                {bytes(p.size_bytes)}
              </td>
              <td className="cell-number" translate="no">
                {p.used_percent !== null && (
                  <meter
                    min={0}
                    max={100}
                    high={80}
                    value={p.used_percent}
                    aria-label={t('nas.usedLabel', { name: p.name })}
                  />
                )}{' '}
                {bytes(p.allocated_bytes)}
                {p.used_percent !== null && ` (${formatNumber(p.used_percent, 1)} %)`}
              </td>
              <td className="cell-number" translate="no">
                {bytes(p.free_bytes)}
              </td>
              <td translate="no">
                {p.last_scan
                  ? `${p.last_scan.function.toLowerCase()} ${p.last_scan.state.toLowerCase()}`
                  : '—'}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Datasets({ asset, page, onPage }: { asset: Asset; page: number; onPage: (page: number) => void }) {
  const { t } = useT();
  const datasets = useQuery({
    queryKey: ['nas', asset.id, 'datasets', page],
    queryFn: () => hub.call('nas.datasets', { params: { id: asset.id }, query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  if (datasets.isPending) return <Loading label={t('nas.loadingDatasets')} />;
  if (datasets.isError) return <ErrorNotice error={datasets.error} retry={() => void datasets.refetch()} />;
  if (datasets.data.data.length === 0) return <EmptyState title={t('nas.noDatasets')} />;
  return (
    <>
      <div className="rows-scroll">
        <table className="data-table" aria-label={t('nas.datasets')}>
          <thead>
            <tr>
              <th scope="col">{t('nas.dataset')}</th>
              <th scope="col">{t('nas.type')}</th>
              <th scope="col">{t('nas.used')}</th>
              <th scope="col">{t('nas.available')}</th>
              <th scope="col">{t('nas.encryption')}</th>
              <th scope="col">{t('nas.mountpoint')}</th>
            </tr>
          </thead>
          <tbody>
            {datasets.data.data.map((d) => (
              <tr key={d.id}>
                <th scope="row" translate="no">
                  {d.id}
                </th>
                <td translate="no">{d.type}</td>
                <td className="cell-number" translate="no">
                  {bytes(d.used_bytes)}
                </td>
                <td className="cell-number" translate="no">
                  {bytes(d.available_bytes)}
                </td>
                <td>
                  {d.locked ? (
                    <span className="state-bad">{t('nas.locked')}</span>
                  ) : d.encrypted ? (
                    t('nas.unlocked')
                  ) : (
                    '—'
                  )}
                </td>
                <td translate="no">{d.mountpoint ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={page}
        perPage={perPage}
        total={datasets.data.meta.total}
        busy={datasets.isFetching}
        onPage={onPage}
      />
    </>
  );
}

export function StoragePage() {
  const { t } = useT();
  const [params, setParams] = useSearchParams();
  const assets = useConnectorAssets('nas');
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const asset = assets.data ? pickAsset(assets.data, params.get('asset')) : null;
  return (
    <section className="page" aria-labelledby="storage-title">
      <div className="page-header">
        <h1 id="storage-title">{t('nav.storage')}</h1>
      </div>
      {assets.isPending && <Loading label={t('nas.loadingAppliances')} />}
      {assets.isError && <ErrorNotice error={assets.error} retry={() => void assets.refetch()} />}
      {assets.isSuccess && assets.data.length === 0 && (
        <EmptyState title={t('nas.noAppliance')}>
          <p>{t('nas.noApplianceText')}</p>
        </EmptyState>
      )}
      {asset && assets.data && (
        <>
          {assets.data.length > 1 && (
            <div className="filters" role="search" aria-label={t('nas.choose')}>
              <div className="filter">
                <label htmlFor="storage-asset">{t('nas.nas')}</label>
                <select
                  translate="no"
                  id="storage-asset"
                  value={asset.id}
                  onChange={(e) => {
                    setParams(new URLSearchParams({ asset: e.target.value }), { replace: true });
                  }}
                >
                  {assets.data.map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
                </select>
              </div>
            </div>
          )}
          <p>
            <span translate="no">{asset.name}</span>: <StatusBadge status={asset.status} />
          </p>
          <h2>{t('nas.pools')}</h2>
          <Pools asset={asset} />
          <h2>{t('nas.datasets')}</h2>
          <Datasets
            asset={asset}
            page={page}
            onPage={(p) => {
              const next = new URLSearchParams(params);
              next.set('page', String(p));
              setParams(next, { replace: true });
            }}
          />
        </>
      )}
    </section>
  );
}
