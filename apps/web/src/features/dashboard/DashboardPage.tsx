/**
 * Fleet health at a glance: asset counts by status (`/status/aggregate`), fleet averages of the last minutes
 * (`/metrics/overview`), the fleet's busiest assets (`/metrics/top`, one call) with small charts of their
 * stored metrics, and for
 * admins the latest audit events (who did what to which asset, group, key or user, by name and linked:
 * ../audit/audit-names.ts), and the hub's live activity. Refreshed as the event feed reports changes,
 * and polled every 10 s as a fallback (every minute while the feed is live).
 */
import { useState } from 'react';
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import {
  topMetrics,
  type AuditEvent,
  type MetricSample,
  type MetricsTopEntry,
  type TopMetric,
} from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { ChartZoneSwitch, useChartZone, type ChartZone } from '../../components/chart-zone';
import { MiniChart } from '../../components/MiniChart';
import { formatNumber, formatPercent, formatTime, formatTimeIn } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { useAuditNames, type NamedRef } from '../audit/audit-names';
import { LiveActivity, useLiveInterval } from '../events/LiveEvents';

const fallbackInterval = 10_000;
/** How many of the busiest assets are shown, each with its chart: a bounded number of calls per refresh. */
const chartedAssets = 8;

function percent(used: number, total: number): number | null {
  return total > 0 ? (used / total) * 100 : null;
}

export function memoryPercent(s: MetricSample): number | null {
  return percent(s.memory_used_bytes, s.memory_total_bytes);
}

export function diskPercent(s: MetricSample): number | null {
  return percent(s.disk_used_bytes, s.disk_total_bytes);
}

type Tile = 'assets' | 'online' | 'offline' | 'unknown' | 'groups' | 'alerts';

function TileText({ tile, value }: { tile: Tile; value: number | string }) {
  const { t } = useT();
  return (
    <>
      <span className="tile-value" data-testid={`count-${tile}`}>
        {typeof value === 'number' ? formatNumber(value) : value}
      </span>
      <span className="tile-label">{t('dashboard.tile', { tile })}</span>
    </>
  );
}

function StatusCounts() {
  const { t } = useT();
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
  if (aggregate.isPending) return <Loading label={t('dashboard.loadingStatus')} />;
  if (aggregate.isError)
    return <ErrorNotice error={aggregate.error} retry={() => void aggregate.refetch()} />;
  const { assets, groups } = aggregate.data;
  const activeAlerts = alerts.data?.meta.total;
  const tiles: { tile: Tile; value: number | string; to: string; tone: string }[] = [
    { tile: 'assets', value: assets.total, to: '/assets', tone: '' },
    { tile: 'online', value: assets.online, to: '/assets?status=online', tone: 'ok' },
    {
      tile: 'offline',
      value: assets.offline,
      to: '/assets?status=offline',
      tone: assets.offline > 0 ? 'bad' : '',
    },
    { tile: 'unknown', value: assets.unknown, to: '/assets?status=unknown', tone: '' },
    { tile: 'groups', value: groups, to: '/groups', tone: '' },
    {
      tile: 'alerts',
      value: activeAlerts ?? '—',
      to: '/alerts',
      tone: activeAlerts !== undefined && activeAlerts > 0 ? 'bad' : '',
    },
  ];
  return (
    <ul className="tiles" aria-label={t('dashboard.fleetStatus')}>
      {tiles.map((tile) => (
        <li key={tile.tile} className={`tile ${tile.tone}`}>
          <Link to={tile.to} className="tile-body">
            <TileText tile={tile.tile} value={tile.value} />
          </Link>
        </li>
      ))}
    </ul>
  );
}

function FleetAverages() {
  const { t } = useT();
  const refetchInterval = useLiveInterval(fallbackInterval);
  const overview = useQuery({
    queryKey: ['metrics', 'overview'],
    queryFn: async () => (await hub.call('metrics.overview')).data,
    refetchInterval,
  });
  if (overview.isPending) return <Loading label={t('dashboard.loadingMetrics')} />;
  if (overview.isError) return <ErrorNotice error={overview.error} />;
  const o = overview.data;
  return (
    <dl className="averages">
      <div>
        <dt>{t('dashboard.cpuAverage')}</dt>
        <dd>{formatPercent(o.cpu_percent_avg)}</dd>
      </div>
      <div>
        <dt>{t('dashboard.memoryUsed')}</dt>
        <dd>{formatPercent(o.memory_used_percent_avg)}</dd>
      </div>
      <div>
        <dt>{t('dashboard.diskUsed')}</dt>
        <dd>{formatPercent(o.disk_used_percent_avg)}</dd>
      </div>
      <div>
        <dt>{t('dashboard.reporting')}</dt>
        <dd>
          {t('dashboard.reportingValue', {
            reporting: o.assets_reporting,
            online: o.assets_online,
            minutes: o.window_minutes,
          })}
        </dd>
      </div>
    </dl>
  );
}

interface AssetLoad {
  entry: MetricsTopEntry;
  samples: MetricSample[];
  /** The span charted, seconds since the epoch: the last hour. */
  from: number;
  to: number;
}

/** The hub ranks the whole fleet (one call); only the charts of the few it names are fetched. */
async function busiestAssets(metric: TopMetric): Promise<AssetLoad[]> {
  const top = (await hub.call('metrics.top', { query: { metric, limit: chartedAssets } })).data;
  const to = Date.now();
  const from = new Date(to - 60 * 60 * 1000).toISOString();
  return Promise.all(
    top.assets.map(async (entry) => {
      const { samples } = (
        await hub.call('metrics.history', { params: { id: entry.asset_id }, query: { from, limit: 120 } })
      ).data;
      return { entry, samples, from: Date.parse(from) / 1000, to: to / 1000 };
    }),
  );
}

const high = (v: number | null) => (v !== null && v >= 90 ? 'high' : undefined);

/** One metric of one busy asset: its last hour charted, and the value now. */
function LoadCell({
  load,
  metric,
  values,
  now,
  zone,
}: {
  load: AssetLoad;
  metric: 'cpu' | 'memory' | 'disk';
  values: (number | null)[];
  now: number | null;
  zone: ChartZone;
}) {
  const { t } = useT();
  return (
    <td className={high(now)}>
      <div className="load-cell">
        <MiniChart
          times={load.samples.map((s) => Date.parse(s.ts) / 1000)}
          values={values}
          from={load.from}
          to={load.to}
          max={100}
          format={formatPercent}
          unit="%"
          label={t('dashboard.sparkline', { name: load.entry.name, metric })}
          zone={zone}
          timeAxis={false}
        />
        <span>{formatPercent(now)}</span>
      </div>
    </td>
  );
}

/** The span every chart of the table shows, said once under it, in the zone chosen. */
function ChartSpan({ load, zone }: { load: AssetLoad; zone: ChartZone }) {
  const { rich } = useT();
  const at = (seconds: number) => (
    <time dateTime={new Date(seconds * 1000).toISOString()}>
      {formatTimeIn(seconds * 1000, zone.zone, 'clock')}
    </time>
  );
  return (
    <tfoot>
      <tr>
        <td colSpan={4} className="muted small">
          {rich('dashboard.chartSpan', { from: at(load.from), to: at(load.to), zone: zone.zone })}
        </td>
      </tr>
    </tfoot>
  );
}

function BusiestAssets() {
  const { t } = useT();
  const zone = useChartZone();
  const refetchInterval = useLiveInterval(fallbackInterval);
  const [metric, setMetric] = useState<TopMetric>('cpu');
  const loads = useQuery({
    queryKey: ['dashboard', 'busiest', metric],
    queryFn: () => busiestAssets(metric),
    refetchInterval,
  });
  const rankBy = (
    <label className="rank-by">
      {t('dashboard.rankBy')}{' '}
      <select
        value={metric}
        onChange={(e) => {
          setMetric(e.target.value as TopMetric);
        }}
      >
        {topMetrics.map((m) => (
          <option key={m} value={m}>
            {t('metric.name', { metric: m })}
          </option>
        ))}
      </select>
    </label>
  );
  if (loads.isPending) return <Loading label={t('dashboard.loadingAssetMetrics')} />;
  if (loads.isError) return <ErrorNotice error={loads.error} />;
  if (loads.data.length === 0) {
    return (
      <>
        {rankBy}
        <EmptyState title={t('dashboard.noneReporting')}>
          <p>{t('dashboard.noneReportingText')}</p>
        </EmptyState>
      </>
    );
  }
  return (
    <>
      {rankBy}
      <ChartZoneSwitch zone={zone} />
      <table className="data-table load-table">
        <caption className="visually-hidden">
          {t('dashboard.busiestCaption', { metric: t('metric.name', { metric }) })}
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
            <th scope="col">{t('dashboard.asset')}</th>
            <th scope="col">{t('metric.name', { metric: 'cpu' })}</th>
            <th scope="col">{t('metric.name', { metric: 'memory' })}</th>
            <th scope="col">{t('metric.name', { metric: 'disk' })}</th>
          </tr>
        </thead>
        <tbody>
          {loads.data.map((load) => {
            const { entry } = load;
            return (
              <tr key={entry.asset_id} data-testid="busiest-row">
                <th scope="row">
                  <Link to={`/assets/${entry.asset_id}`} title={entry.name} translate="no">
                    {entry.name}
                  </Link>
                  {metric === 'load' && (
                    <span className="muted small">
                      {' '}
                      {t('dashboard.load', { load: formatNumber(entry.load1, 2) })}
                    </span>
                  )}
                </th>
                <LoadCell
                  load={load}
                  metric="cpu"
                  values={load.samples.map((s) => s.cpu_percent)}
                  now={entry.cpu_percent}
                  zone={zone}
                />
                <LoadCell
                  load={load}
                  metric="memory"
                  values={load.samples.map(memoryPercent)}
                  now={entry.memory_used_percent}
                  zone={zone}
                />
                <LoadCell
                  load={load}
                  metric="disk"
                  values={load.samples.map(diskPercent)}
                  now={entry.disk_used_percent}
                  zone={zone}
                />
              </tr>
            );
          })}
        </tbody>
        {loads.data[0] && <ChartSpan load={loads.data[0]} zone={zone} />}
      </table>
    </>
  );
}

/** Who acted: the user's or key's name linked to its page, else the raw id, else the kind of actor. */
function Actor({ event, named }: { event: AuditEvent; named: NamedRef | null }) {
  const { t } = useT();
  if (named) return <NameLink named={named} />;
  if (event.actor_id) return <code>{event.actor_id}</code>;
  return <>{t('dashboard.actorType', { type: event.actor_type })}</>;
}

function NameLink({ named }: { named: NamedRef }) {
  return named.to ? (
    <Link to={named.to} translate="no">
      {named.name}
    </Link>
  ) : (
    <span translate="no">{named.name}</span>
  );
}

function RecentAudit() {
  const { t, rich } = useT();
  const { isAdmin } = useSession();
  const refetchInterval = useLiveInterval(fallbackInterval);
  const audit = useQuery({
    queryKey: ['audit', 'recent'],
    queryFn: async () => (await hub.call('audit.list', { query: { per_page: 10 } })).data,
    refetchInterval,
  });
  const names = useAuditNames(audit.data ?? [], isAdmin);
  if (audit.isPending) return <Loading label={t('dashboard.loadingAudit')} />;
  if (audit.isError) return <ErrorNotice error={audit.error} />;
  if (audit.data.length === 0) return <EmptyState title={t('dashboard.noAudit')} />;
  return (
    <ol className="audit-list">
      {audit.data.map((event) => {
        const actor = <Actor event={event} named={names.actor(event)} />;
        const target = names.target(event);
        return (
          <li key={event.id} data-testid="audit-entry">
            <time dateTime={event.ts}>{formatTime(event.ts)}</time> <code>{event.action}</code>{' '}
            <span className="muted">
              {event.target_id
                ? rich('dashboard.auditByOn', {
                    actor,
                    target: target ? <NameLink named={target} /> : <code>{event.target_id}</code>,
                  })
                : rich('dashboard.auditBy', { actor })}
            </span>
          </li>
        );
      })}
    </ol>
  );
}

export function DashboardPage() {
  const { t } = useT();
  const { isAdmin } = useSession();
  return (
    <section className="page" aria-labelledby="dashboard-title">
      <h1 id="dashboard-title">{t('dashboard.title')}</h1>
      <StatusCounts />
      <div className="panels">
        <section className="panel" aria-labelledby="averages-title">
          <h2 id="averages-title">{t('dashboard.fleetLoad')}</h2>
          <FleetAverages />
        </section>
        <section className="panel wide" aria-labelledby="busiest-title">
          <h2 id="busiest-title">{t('dashboard.busiest')}</h2>
          <BusiestAssets />
        </section>
        <section className="panel" aria-labelledby="live-title">
          <h2 id="live-title">{t('dashboard.live')}</h2>
          <LiveActivity />
        </section>
        {isAdmin && (
          <section className="panel" aria-labelledby="audit-title">
            <h2 id="audit-title">{t('dashboard.recent')}</h2>
            <RecentAudit />
          </section>
        )}
      </div>
    </section>
  );
}
