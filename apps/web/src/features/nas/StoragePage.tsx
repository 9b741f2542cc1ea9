/** Storage: the pools and datasets of each TrueNAS a connector brought, with sizes as TrueNAS parsed them. */
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useSearchParams } from 'react-router';
import type { Asset, NasPool } from '@svc/protocol';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { formatBytes } from '../../components/units';
import { pickAsset, useConnectorAssets } from '../../components/use-connector-assets';
import { StatusBadge } from '../assets/StatusBadge';

const perPage = 100;

function bytes(value: number | null): string {
  return value === null ? '—' : formatBytes(value);
}

function PoolHealth({ pool }: { pool: NasPool }) {
  return <span className={pool.healthy ? 'state-ok' : 'state-bad'}>{pool.status}</span>;
}

function Pools({ asset }: { asset: Asset }) {
  const pools = useQuery({
    queryKey: ['nas', asset.id, 'pools'],
    queryFn: () => hub.call('nas.pools', { params: { id: asset.id }, query: { per_page: 500 } }),
    refetchInterval: 30_000,
  });
  if (pools.isPending) return <Loading label="Loading pools" />;
  if (pools.isError) return <ErrorNotice error={pools.error} retry={() => void pools.refetch()} />;
  if (pools.data.data.length === 0) return <EmptyState title="No pools" />;
  return (
    <div className="rows-scroll">
      <table className="data-table" aria-label="Pools">
        <thead>
          <tr>
            <th scope="col">Pool</th>
            <th scope="col">Status</th>
            <th scope="col">Size</th>
            <th scope="col">Used</th>
            <th scope="col">Free</th>
            <th scope="col">Last scan</th>
          </tr>
        </thead>
        <tbody>
          {pools.data.data.map((p) => (
            <tr key={p.id}>
              <th scope="row">{p.name}</th>
              <td>
                <PoolHealth pool={p} />
                {p.status_detail && <div className="muted">{p.status_detail}</div>}
              </td>
              <td className="cell-number">{bytes(p.size_bytes)}</td>
              <td className="cell-number">
                {p.used_percent !== null && (
                  <meter min={0} max={100} high={80} value={p.used_percent} aria-label={`${p.name} used`} />
                )}{' '}
                {bytes(p.allocated_bytes)}
                {p.used_percent !== null && ` (${String(p.used_percent)} %)`}
              </td>
              <td className="cell-number">{bytes(p.free_bytes)}</td>
              <td>
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
  const datasets = useQuery({
    queryKey: ['nas', asset.id, 'datasets', page],
    queryFn: () => hub.call('nas.datasets', { params: { id: asset.id }, query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval: 30_000,
  });
  if (datasets.isPending) return <Loading label="Loading datasets" />;
  if (datasets.isError) return <ErrorNotice error={datasets.error} retry={() => void datasets.refetch()} />;
  if (datasets.data.data.length === 0) return <EmptyState title="No datasets" />;
  return (
    <>
      <div className="rows-scroll">
        <table className="data-table" aria-label="Datasets">
          <thead>
            <tr>
              <th scope="col">Dataset</th>
              <th scope="col">Type</th>
              <th scope="col">Used</th>
              <th scope="col">Available</th>
              <th scope="col">Encryption</th>
              <th scope="col">Mountpoint</th>
            </tr>
          </thead>
          <tbody>
            {datasets.data.data.map((d) => (
              <tr key={d.id}>
                <th scope="row">{d.id}</th>
                <td>{d.type}</td>
                <td className="cell-number">{bytes(d.used_bytes)}</td>
                <td className="cell-number">{bytes(d.available_bytes)}</td>
                <td>
                  {d.locked ? <span className="state-bad">locked</span> : d.encrypted ? 'unlocked' : '—'}
                </td>
                <td>{d.mountpoint ?? '—'}</td>
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
  const [params, setParams] = useSearchParams();
  const assets = useConnectorAssets('nas');
  const page = Math.max(1, Number(params.get('page') ?? '1') || 1);
  const asset = assets.data ? pickAsset(assets.data, params.get('asset')) : null;
  return (
    <section className="page" aria-labelledby="storage-title">
      <div className="page-header">
        <h1 id="storage-title">Storage</h1>
      </div>
      {assets.isPending && <Loading label="Loading storage appliances" />}
      {assets.isError && <ErrorNotice error={assets.error} retry={() => void assets.refetch()} />}
      {assets.isSuccess && assets.data.length === 0 && (
        <EmptyState title="No storage appliance">
          <p>A TrueNAS connector (Admin, Connectors) brings its NAS here.</p>
        </EmptyState>
      )}
      {asset && assets.data && (
        <>
          {assets.data.length > 1 && (
            <div className="filters" role="search" aria-label="Choose a NAS">
              <div className="filter">
                <label htmlFor="storage-asset">NAS</label>
                <select
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
            {asset.name}: <StatusBadge status={asset.status} />
          </p>
          <h2>Pools</h2>
          <Pools asset={asset} />
          <h2>Datasets</h2>
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
