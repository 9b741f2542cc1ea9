/**
 * The hub itself: health, version, uptime, database, assets by status, connected agents and metric samples
 * dropped or lost; refreshed every 10 s. Then the hub processes sharing its database and bus, with a notice
 * while the bus is down; below, the connected agents with their own sample counts.
 */
import { useState } from 'react';
import type { ClusterStatus } from '@svc/protocol';
import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Pager } from '../../components/Pager';
import { Time } from '../../components/Time';

const refetchInterval = 10_000;
const perPage = 50;

function durationText(seconds: number): string {
  const days = Math.floor(seconds / 86_400);
  const hours = Math.floor((seconds % 86_400) / 3600);
  const minutes = Math.floor((seconds % 3600) / 60);
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${minutes} min`;
  if (minutes > 0) return `${minutes} min`;
  return `${seconds} s`;
}

function useHubStatus() {
  return useQuery({
    queryKey: ['hub', 'status'],
    queryFn: async () => (await hub.call('hub.status')).data,
    refetchInterval,
  });
}

function StatusFacts() {
  const status = useHubStatus();
  if (status.isPending) return <Loading label="Loading the hub status" />;
  if (status.isError) return <ErrorNotice error={status.error} retry={() => void status.refetch()} />;
  const s = status.data;
  return (
    <>
      <ul className="tiles" aria-label="Hub">
        <li className={`tile static ${s.status === 'ok' ? 'ok' : 'bad'}`}>
          <span className="tile-value" data-testid="hub-health">
            {s.status}
          </span>
          <span className="tile-label">Health</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{s.agents_connected}</span>
          <span className="tile-label">Agents connected</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{s.assets.online}</span>
          <span className="tile-label">of {s.assets.total} assets online</span>
        </li>
        <li className="tile static">
          <span className="tile-value">{durationText(s.uptime_seconds)}</span>
          <span className="tile-label">Uptime</span>
        </li>
      </ul>
      <dl className="facts">
        <div>
          <dt>Version</dt>
          <dd data-testid="hub-version">{s.version}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>
            <Time value={s.started_at} />
          </dd>
        </div>
        <div>
          <dt>Database</dt>
          <dd>{s.database === 'sqlite' ? 'SQLite (embedded)' : 'PostgreSQL'}</dd>
        </div>
        <div>
          <dt>Assets</dt>
          <dd>
            {s.assets.total} total: {s.assets.online} online, {s.assets.offline} offline, {s.assets.unknown}{' '}
            unknown
          </dd>
        </div>
        <div>
          <dt>Metric samples dropped</dt>
          <dd title="Refused by agents' budgets: over budget, duplicate timestamp or outside the window">
            {s.metrics.samples_dropped}
          </dd>
        </div>
        <div>
          <dt>Metric samples lost</dt>
          <dd className={s.metrics.samples_lost > 0 ? 'bad' : undefined} title="Taken but not stored">
            {s.metrics.samples_lost}
          </dd>
        </div>
        <div>
          <dt>Metric purges pending</dt>
          <dd>{s.metrics.purges_pending}</dd>
        </div>
        <div>
          <dt>Hub time</dt>
          <dd>
            <Time value={s.time} />
          </dd>
        </div>
      </dl>
    </>
  );
}

const busText: Record<ClusterStatus['nats'], string> = {
  up: 'NATS connected',
  down: 'NATS down',
  none: 'None: a single process',
};

/** Whether a lease ran out by the hub's own clock (a process about to be taken for gone). */
function isExpired(lease: string | null, hubTime: string): boolean {
  return lease !== null && new Date(lease).getTime() < new Date(hubTime).getTime();
}

function ClusterProcesses() {
  const status = useHubStatus();
  // The facts above show the loading state and the error of the same query.
  if (!status.data) return null;
  const { cluster, time } = status.data;
  return (
    <>
      {cluster.nats === 'down' && (
        <div className="notice error" role="alert" data-testid="cluster-degraded">
          <p>
            NATS is down: {cluster.nats_reason ?? 'disconnected'}; requests that need another process answer
            503 until it is back.
          </p>
        </div>
      )}
      <dl className="facts">
        <div>
          <dt>Cluster bus</dt>
          <dd className={cluster.nats === 'down' ? 'bad' : undefined} data-testid="cluster-bus">
            {busText[cluster.nats]}
          </dd>
        </div>
      </dl>
      {/* Scrolls sideways on a phone and holds nothing focusable: the region itself takes the keyboard. */}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Hub processes">
        <table className="data-table admin-table">
          <caption className="visually-hidden">Hub processes</caption>
          <thead>
            <tr>
              <th scope="col">Node</th>
              <th scope="col">Epoch</th>
              <th scope="col">Started</th>
              <th scope="col">Lease expires</th>
              <th scope="col">Agents</th>
            </tr>
          </thead>
          <tbody>
            {cluster.processes.map((p) => (
              <tr key={p.node_id} aria-current={p.this_process ? 'true' : undefined}>
                <th scope="row">
                  <code>{p.node_id}</code>
                  {p.this_process && <span className="chip">this process</span>}
                </th>
                <td>{p.epoch}</td>
                <td>
                  <Time value={p.started_at} />
                </td>
                <td className={isExpired(p.lease_expires_at, time) ? 'bad' : undefined}>
                  <Time value={p.lease_expires_at} empty="no lease (single process)" />
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
  const [page, setPage] = useState(1);
  const agents = useQuery({
    queryKey: ['hub', 'agents', page],
    queryFn: () => hub.call('agents.list', { query: { page, per_page: perPage } }),
    placeholderData: keepPreviousData,
    refetchInterval,
  });
  if (agents.isPending) return <Loading label="Loading the connected agents" />;
  if (agents.isError) return <ErrorNotice error={agents.error} retry={() => void agents.refetch()} />;
  if (agents.data.data.length === 0) return <EmptyState title="No agent is connected" />;
  return (
    <>
      <div className="table-wrap">
        <table className="data-table admin-table">
          <caption className="visually-hidden">Connected agents</caption>
          <thead>
            <tr>
              <th scope="col">Asset</th>
              <th scope="col">Platform</th>
              <th scope="col">Agent</th>
              <th scope="col">Address</th>
              <th scope="col">Connected</th>
              <th scope="col">Last seen</th>
              <th scope="col">Samples</th>
            </tr>
          </thead>
          <tbody>
            {agents.data.data.map((agent) => (
              <tr key={agent.asset_id}>
                <th scope="row">
                  <Link to={`/assets/${encodeURIComponent(agent.asset_id)}`}>{agent.name}</Link>
                  {agent.low_power && <span className="chip">low power</span>}
                </th>
                <td>{agent.platform}</td>
                <td>{agent.agent_version ?? '—'}</td>
                <td>{agent.remote_address ?? '—'}</td>
                <td>
                  <Time value={agent.connected_at} />
                </td>
                <td>
                  <Time value={agent.last_seen_at} />
                </td>
                <td
                  title={`over budget ${agent.metrics.over_budget}, duplicate ${agent.metrics.duplicate}, outside the window ${agent.metrics.out_of_window}`}
                >
                  {agent.metrics.accepted} taken,{' '}
                  {agent.metrics.over_budget + agent.metrics.duplicate + agent.metrics.out_of_window} dropped
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
  return (
    <section className="page" aria-labelledby="hub-status-title">
      <div className="page-header">
        <h1 id="hub-status-title">Hub status</h1>
      </div>
      <StatusFacts />
      <section className="panel" aria-labelledby="processes-title">
        <h2 id="processes-title">Processes</h2>
        <ClusterProcesses />
      </section>
      <section className="panel" aria-labelledby="agents-title">
        <h2 id="agents-title">Connected agents</h2>
        <ConnectedAgents />
      </section>
    </section>
  );
}
