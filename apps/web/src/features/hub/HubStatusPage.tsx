/**
 * The hub itself: health, version, uptime, database, assets by status, connected agents and metric samples
 * dropped or lost; refreshed every 10 s. Then the hub processes sharing its database and bus, with a notice
 * while the bus is down; below, the connected agents with their own sample counts.
 */
import { useState } from 'react';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';

const refetchInterval = 10_000;
const perPage = 50;

/** The uptime's two largest units: `unit` picks the message's branch, `a` and `b` fill it. */
function uptimeParts(seconds: number): { unit: string; a: number; b: number } {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return { unit: 'days', a: days, b: hours };
  if (hours > 0) return { unit: 'hours', a: hours, b: minutes };
  if (minutes > 0) return { unit: 'minutes', a: minutes, b: 0 };
  return { unit: 'seconds', a: seconds, b: 0 };
}

function useHubStatus() {
  return useQuery({
    queryKey: ['hub', 'status'],
    queryFn: async () => (await hub.call('hub.status')).data,
    refetchInterval,
  });
}

function StatusFacts() {
  const { t } = useT();
  const status = useHubStatus();
  if (status.isPending) return <Loading label={t('hub.loadingStatus')} />;
  if (status.isError) return <ErrorNotice error={status.error} retry={() => void status.refetch()} />;
  const s = status.data;
  return (
    <>
      <ul className="tiles" aria-label={t('hub.tiles')}>
        <li className={`tile static ${s.status === 'ok' ? 'ok' : 'bad'}`}>
          <span className="tile-value" data-testid="hub-health">
            {t('hub.health', { status: s.status })}
          </span>
          <span className="tile-label">{t('hub.healthLabel')}</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{s.agents_connected}</span>
          <span className="tile-label">{t('hub.agentsConnected')}</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{s.assets.online}</span>
          <span className="tile-label">{t('hub.assetsOnline', { total: s.assets.total })}</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{t('hub.uptime', uptimeParts(s.uptime_seconds))}</span>
          <span className="tile-label">{t('hub.uptimeLabel')}</span>
        </li>
      </ul>
      <dl className="facts">
        <div>
          <dt>{t('hub.version')}</dt>
          <dd data-testid="hub-version" translate="no">
            {s.version}
          </dd>
        </div>
        <div>
          <dt>{t('hub.started')}</dt>
          <dd>
            <Time value={s.started_at} />
          </dd>
        </div>
        <div>
          <dt>{t('hub.database')}</dt>
          <dd>{t('hub.databaseName', { database: s.database })}</dd>
        </div>
        <div>
          <dt>{t('hub.assets')}</dt>
          <dd>
            {t('hub.assetCounts', {
              total: s.assets.total,
              online: s.assets.online,
              offline: s.assets.offline,
              unknown: s.assets.unknown,
            })}
          </dd>
        </div>
        <div>
          <dt>{t('hub.samplesDropped')}</dt>
          <dd title={t('hub.samplesDroppedTitle')}>{s.metrics.samples_dropped}</dd>
        </div>
        <div>
          <dt>{t('hub.samplesLost')}</dt>
          <dd className={s.metrics.samples_lost > 0 ? 'bad' : undefined} title={t('hub.samplesLostTitle')}>
            {s.metrics.samples_lost}
          </dd>
        </div>
        <div>
          <dt>{t('hub.purgesPending')}</dt>
          <dd>{s.metrics.purges_pending}</dd>
        </div>
        <div>
          <dt>{t('hub.time')}</dt>
          <dd>
            <Time value={s.time} />
          </dd>
        </div>
      </dl>
    </>
  );
}

/** Whether a lease ran out by the hub's own clock (a process about to be taken for gone). */
function isExpired(lease: string | null, hubTime: string): boolean {
  return lease !== null && new Date(lease).getTime() < new Date(hubTime).getTime();
}

function ClusterProcesses() {
  const { t } = useT();
  const status = useHubStatus();
  // The facts above show the loading state and the error of the same query.
  if (!status.data) return null;
  const { cluster, time } = status.data;
  return (
    <>
      {cluster.nats === 'down' && (
        <div className="notice error" role="alert" data-testid="cluster-degraded">
          <p>{t('hub.natsDown', { reason: cluster.nats_reason ?? t('hub.disconnected') })}</p>
        </div>
      )}
      <dl className="facts">
        <div>
          <dt>{t('hub.clusterBus')}</dt>
          <dd className={cluster.nats === 'down' ? 'bad' : undefined} data-testid="cluster-bus">
            {t('hub.bus', { nats: cluster.nats })}
          </dd>
        </div>
      </dl>
      {/* Scrolls sideways on a phone and holds nothing focusable: the region itself takes the keyboard. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label={t('hub.processesTable')}>
        <table className="data-table admin-table">
          <caption className="visually-hidden">{t('hub.processesTable')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('hub.node')}</th>
              <th scope="col">{t('hub.epoch')}</th>
              <th scope="col">{t('hub.started')}</th>
              <th scope="col">{t('hub.leaseExpires')}</th>
              <th scope="col">{t('hub.agents')}</th>
            </tr>
          </thead>
          <tbody>
            {cluster.processes.map((p) => (
              <tr key={p.node_id} aria-current={p.this_process ? 'true' : undefined}>
                <th scope="row">
                  <code>{p.node_id}</code>
                  {p.this_process && <span className="chip">{t('hub.thisProcess')}</span>}
                </th>
                <td>{p.epoch}</td>
                <td>
                  <Time value={p.started_at} />
                </td>
                <td className={isExpired(p.lease_expires_at, time) ? 'bad' : undefined}>
                  <Time value={p.lease_expires_at} empty={t('hub.noLease')} />
                </td>
                <td>{p.agents}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}

function ConnectedAgents() {
  const { t } = useT();
  const [page, setPage] = useState(1);
  const agents = useQuery({
    queryKey: ['hub', 'agents', page],
    queryFn: () => hub.call('agents.list', { query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
  if (agents.isPending) return <Loading label={t('hub.loadingAgents')} />;
  if (agents.isError) return <ErrorNotice error={agents.error} retry={() => void agents.refetch()} />;
  if (agents.data.data.length === 0) return <EmptyState title={t('hub.noAgent')} />;
  return (
    <>
      <div className="table-wrap">
        <table className="data-table admin-table">
          <caption className="visually-hidden">{t('hub.connectedAgents')}</caption>
          <thead>
            <tr>
              <th scope="col">{t('hub.asset')}</th>
              <th scope="col">{t('hub.platform')}</th>
              <th scope="col">{t('hub.agent')}</th>
              <th scope="col">{t('hub.address')}</th>
              <th scope="col">{t('hub.connected')}</th>
              <th scope="col">{t('hub.lastSeen')}</th>
              <th scope="col">{t('hub.samples')}</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.data.map((agent) => (
              <tr key={agent.asset_id}>
                <th scope="row">
                  <Link to={`/assets/${encodeURIComponent(agent.asset_id)}`} translate="no">
                    {agent.name}
                  </Link>
                  {agent.low_power && <span className="chip">{t('hub.lowPower')}</span>}
                </th>
                <td>{t('asset.platform', { platform: agent.platform })}</td>
                <td translate="no">{agent.agent_version ?? '—'}</td>
                <td translate="no">{agent.remote_address ?? '—'}</td>
                <td>
                  <Time value={agent.connected_at} />
                </td>
                <td>
                  <Time value={agent.last_seen_at} />
                </td>
                <td
                  title={t('hub.samplesTitle', {
                    overBudget: agent.metrics.over_budget,
                    duplicate: agent.metrics.duplicate,
                    outside: agent.metrics.out_of_window,
                  })}
                >
                  {t('hub.samplesText', {
                    taken: agent.metrics.accepted,
                    dropped:
                      agent.metrics.over_budget + agent.metrics.duplicate + agent.metrics.out_of_window,
                  })}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <Pager
        page={page}
        perPage={perPage}
        total={agents.data.meta.total}
        onPage={setPage}
        busy={agents.isFetching}
      />
    </>
  );
}

export function HubStatusPage() {
  const { t } = useT();
  return (
    <section className="page" aria-labelledby="hub-status-title">
      <div className="page-header">
        <h1 id="hub-status-title">{t('admin.section', { section: 'status' })}</h1>
      </div>
      <StatusFacts />
      <section className="panel" aria-labelledby="processes-title">
        <h2 id="processes-title">{t('hub.processes')}</h2>
        <ClusterProcesses />
      </section>
      <section className="panel" aria-labelledby="agents-title">
        <h2 id="agents-title">{t('hub.connectedAgents')}</h2>
        <ConnectedAgents />
      </section>
    </section>
  );
}
