/**
 * Fleet health at a glance: asset counts by status (`/status/aggregate`), fleet averages of the last minutes
 * (`/metrics/overview`), the fleet's busiest assets (`/metrics/top`, one call) with small charts of their
 * stored metrics, and for
 * admins the latest audit events, and the hub's live activity. Refreshed as the event feed reports changes,
 * and polled every 10 s as a fallback (every minute while the feed is live).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { topMetrics, type MetricSample, type MetricsTopEntry, type TopMetric } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Sparkline } from '../../components/Sparkline';
import { LiveActivity, useLiveInterval } from '../events/LiveEvents';

const fallbackInterval = 10_000;
/** How many of the busiest assets are shown, each with its chart: a bounded number of calls per refresh. */
const chartedAssets = 8;

const topMetricLabels: Record<TopMetric, string> = {
  cpu: 'CPU',
  memory: 'Memory',
  disk: 'Disk',
  load: 'Load',
};

function percent(used: number, total: number): number | null {
  return total > 0 ? (used / total) * 100 : null;
}

export function memoryPercent(s: MetricSample): number | null {
  return percent(s.memory_used_bytes, s.memory_total_bytes);
}

export function diskPercent(s: MetricSample): number | null {
  return percent(s.disk_used_bytes, s.disk_total_bytes);
}

function formatPercent(value: number | null | undefined): string {
  return value === null || value === undefined ? '—' : `${value.toFixed(1)} %`;
}

function TileText({ label, value }: { label: string; value: number | string }) {
  return (
    <>
      <span className="tile-value" data-testid={`count-${label.toLowerCase()}`}>
        {value}
      </span>
      <span className="tile-label">{label}</span>
    </>
  );
}

function StatusCounts() {
  const refetchInterval = useLiveInterval(fallbackInterval);
  const aggregate = useQuery({
    queryKey: ['status', 'aggregate'],
    queryFn: async () => (await hub.call('status.aggregate')).data,
    refetchInterval,
  });
  // Alerts not resolved yet: the count is the list's total, one row fetched.
  const alerts = useQuery({
    queryKey: ['alerts', 'active-count'],
    queryFn: () => hub.call('alerts.list', { query: { status: 'active', per_page: 1 } }),
    refetchInterval,
  });
  if (aggregate.isPending) return <Loading label="Loading the fleet status" />;
  if (aggregate.isError)
    return <ErrorNotice error={aggregate.error} retry={() => void aggregate.refetch()} />;
  const { assets, groups } = aggregate.data;
  const activeAlerts = alerts.data?.meta.total;
  const tiles = [
    { label: 'Assets', value: assets.total, to: '/assets', tone: '' },
    { label: 'Online', value: assets.online, to: '/assets?status=online', tone: 'ok' },
    {
      label: 'Offline',
      value: assets.offline,
      to: '/assets?status=offline',
      tone: assets.offline > 0 ? 'bad' : '',
    },
    { label: 'Unknown', value: assets.unknown, to: '/assets?status=unknown', tone: '' },
    { label: 'Groups', value: groups, to: '/groups', tone: '' },
    {
      label: 'Alerts',
      value: activeAlerts ?? '—',
      to: '/alerts',
      tone: activeAlerts !== undefined && activeAlerts > 0 ? 'bad' : '',
    },
  ];
  return (
    <ul className="tiles" aria-label="Fleet status">
      {tiles.map((t) => (
        <li key={t.label} className={`tile ${t.tone}`}>
          <Link to={t.to} className="tile-body">
            <TileText label={t.label} value={t.value} />
          </Link>
        </li>
      ))}
    </ul>
  );
}

function FleetAverages() {
  const refetchInterval = useLiveInterval(fallbackInterval);
  const overview = useQuery({
    queryKey: ['metrics', 'overview'],
    queryFn: async () => (await hub.call('metrics.overview')).data,
    refetchInterval,
  });
  if (overview.isPending) return <Loading label="Loading the fleet metrics" />;
  if (overview.isError) return <ErrorNotice error={overview.error} />;
  const o = overview.data;
  return (
    <dl className="averages">
      <div>
        <dt>CPU (average)</dt>
        <dd>{formatPercent(o.cpu_percent_avg)}</dd>
      </div>
      <div>
        <dt>Memory used</dt>
        <dd>{formatPercent(o.memory_used_percent_avg)}</dd>
      </div>
      <div>
        <dt>Disk used</dt>
        <dd>{formatPercent(o.disk_used_percent_avg)}</dd>
      </div>
      <div>
        <dt>Reporting</dt>
        <dd>
          {o.assets_reporting} of {o.assets_online} online, last {o.window_minutes} min
        </dd>
      </div>
    </dl>
  );
}

interface AssetLoad {
  entry: MetricsTopEntry;
  samples: MetricSample[];
}

/** The hub ranks the whole fleet (one call); only the charts of the few it names are fetched. */
async function busiestAssets(metric: TopMetric): Promise<AssetLoad[]> {
  const top = (await hub.call('metrics.top', { query: { metric, limit: chartedAssets } })).data;
  const from = new Date(Date.now() - 60 * 60 * 1000).toISOString();
  return Promise.all(
    top.assets.map(async (entry) => {
      const { samples } = (
        await hub.call('metrics.history', { params: { id: entry.asset_id }, query: { from, limit: 120 } })
      ).data;
      return { entry, samples };
    }),
  );
}

function BusiestAssets() {
  const refetchInterval = useLiveInterval(fallbackInterval);
  const [metric, setMetric] = useState<TopMetric>('cpu');
  const loads = useQuery({
    queryKey: ['dashboard', 'busiest', metric],
    queryFn: () => busiestAssets(metric),
    refetchInterval,
  });
  const rankBy = (
    <label className="rank-by">
      Rank by{' '}
      <select
        value={metric}
        onChange={(e) => {
          setMetric(e.target.value as TopMetric);
        }}
      >
        {topMetrics.map((m) => (
          <option key={m} value={m}>
            {topMetricLabels[m]}
          </option>
        ))}
      </select>
    </label>
  );
  if (loads.isPending) return <Loading label="Loading the assets' metrics" />;
  if (loads.isError) return <ErrorNotice error={loads.error} />;
  if (loads.data.length === 0) {
    return (
      <>
        {rankBy}
        <EmptyState title="No asset is reporting">
          <p>Assets whose agent sent metrics in the last minutes show their CPU, memory and disk here.</p>
        </EmptyState>
      </>
    );
  }
  return (
    <>
      {rankBy}
      <table className="data-table load-table">
        <caption className="visually-hidden">
          The fleet's busiest assets by {topMetricLabels[metric]} now, with their last hour
        </caption>
        {/* Fixed widths: a long name is cut (whole in its tooltip) rather than pushing Disk out of the card. */}
        <colgroup>
          <col className="load-col-name" />
          <col className="load-col-metric" />
          <col className="load-col-metric" />
          <col className="load-col-metric" />
        </colgroup>
        <thead>
          <tr>
            <th scope="col">Asset</th>
            <th scope="col">CPU</th>
            <th scope="col">Memory</th>
            <th scope="col">Disk</th>
          </tr>
        </thead>
        <tbody>
          {loads.data.map(({ entry, samples }) => {
            const high = (v: number | null) => (v !== null && v >= 90 ? 'high' : undefined);
            return (
              <tr key={entry.asset_id} data-testid="busiest-row">
                <th scope="row">
                  <Link to={`/assets/${entry.asset_id}`} title={entry.name}>
                    {entry.name}
                  </Link>
                  {metric === 'load' && <span className="muted small"> load {entry.load1.toFixed(2)}</span>}
                </th>
                <td className={high(entry.cpu_percent)}>
                  <Sparkline
                    values={samples.map((s) => s.cpu_percent)}
                    max={100}
                    label={`${entry.name} CPU`}
                  />
                  <span>{formatPercent(entry.cpu_percent)}</span>
                </td>
                <td className={high(entry.memory_used_percent)}>
                  <Sparkline values={samples.map(memoryPercent)} max={100} label={`${entry.name} memory`} />
                  <span>{formatPercent(entry.memory_used_percent)}</span>
                </td>
                <td className={high(entry.disk_used_percent)}>
                  <Sparkline values={samples.map(diskPercent)} max={100} label={`${entry.name} disk`} />
                  <span>{formatPercent(entry.disk_used_percent)}</span>
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}

function RecentAudit() {
  const refetchInterval = useLiveInterval(fallbackInterval);
  const audit = useQuery({
    queryKey: ['audit', 'recent'],
    queryFn: async () => (await hub.call('audit.list', { query: { per_page: 10 } })).data,
    refetchInterval,
  });
  if (audit.isPending) return <Loading label="Loading the audit trail" />;
  if (audit.isError) return <ErrorNotice error={audit.error} />;
  if (audit.data.length === 0) return <EmptyState title="No audit events yet" />;
  return (
    <ol className="audit-list">
      {audit.data.map((event) => (
        <li key={event.id}>
          <time dateTime={event.ts}>{new Date(event.ts).toLocaleString()}</time> <code>{event.action}</code>{' '}
          <span className="muted">
            by {event.actor_type}
            {event.target_id ? ` on ${event.target_id}` : ''}
          </span>
        </li>
      ))}
    </ol>
  );
}

export function DashboardPage() {
  const { isAdmin } = useSession();
  return (
    <section className="page" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">Dashboard</h1>
      <StatusCounts />
      <div className="panels">
        <section className="panel" aria-labelledby="averages-title">
          <h2 id="averages-title">Fleet load</h2>
          <FleetAverages />
        </section>
        <section className="panel wide" aria-labelledby="busiest-title">
          <h2 id="busiest-title">Busiest online assets</h2>
          <BusiestAssets />
        </section>
        <section className="panel" aria-labelledby="live-title">
          <h2 id="live-title">Live activity</h2>
          <LiveActivity />
        </section>
        {isAdmin && (
          <section className="panel" aria-labelledby="audit-title">
            <h2 id="audit-title">Recent activity</h2>
            <RecentAudit />
          </section>
        )}
      </div>
    </section>
  );
}
