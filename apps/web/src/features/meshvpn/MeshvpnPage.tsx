/** Tailscale on the hub's host: the tailnet HTTPS name, what `tailscale serve` publishes, or why not known. */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { formatTime } from '../../components/units';

const reasons = {
  not_installed: 'Tailscale is not installed on the hub host',
  daemon_not_running: 'tailscaled is not running',
  not_logged_in: 'Tailscale is not logged in',
  stopped: 'Tailscale is stopped',
  error: 'Tailscale could not be asked',
} as const;

export function MeshvpnPage() {
  const serve = useQuery({
    queryKey: ['meshvpn', 'serve'],
    queryFn: async () => (await hub.call('meshvpn.serve', {})).data,
    refetchInterval: 30_000,
  });
  return (
    <section className="page" aria-labelledby="meshvpn-title">
      <div className="page-header">
        <h1 id="meshvpn-title">Tailscale</h1>
        <button
          type="button"
          onClick={() => {
            void serve.refetch();
          }}
          disabled={serve.isFetching}
        >
          Check again
        </button>
      </div>
      {serve.isPending && <Loading label="Asking Tailscale" />}
      {serve.isError && <ErrorNotice error={serve.error} retry={() => void serve.refetch()} />}
      {serve.isSuccess && !serve.data.available && (
        <EmptyState title={serve.data.reason ? reasons[serve.data.reason] : 'Tailscale is not available'}>
          <p>{serve.data.message}</p>
          <p className="muted">Checked {formatTime(serve.data.checked_at)}</p>
        </EmptyState>
      )}
      {serve.isSuccess && serve.data.available && (
        <>
          <dl className="facts" aria-label="Tailnet">
            <div>
              <dt>HTTPS name</dt>
              <dd>
                {serve.data.https_host ? (
                  <a href={`https://${serve.data.https_host}`}>{serve.data.https_host}</a>
                ) : (
                  <span className="state-bad">HTTPS certificates are off in this tailnet</span>
                )}
              </dd>
            </div>
            <div>
              <dt>MagicDNS name</dt>
              <dd>{serve.data.dns_name ?? '—'}</dd>
            </div>
            <div>
              <dt>Tailnet</dt>
              <dd>{serve.data.tailnet ?? '—'}</dd>
            </div>
            <div>
              <dt>Addresses</dt>
              <dd>{serve.data.tailscale_ips.join(', ') || '—'}</dd>
            </div>
            <div>
              <dt>Version</dt>
              <dd>{serve.data.version ?? '—'}</dd>
            </div>
            <div>
              <dt>Serve</dt>
              <dd>
                {serve.data.serve.configured ? (
                  <span className="state-ok">
                    publishing on {serve.data.serve.tcp_ports.join(', ')}
                    {serve.data.serve.funnel && ', funnel on (public internet)'}
                    {serve.data.serve.foreground && ', in a foreground session'}
                  </span>
                ) : (
                  'nothing served'
                )}
              </dd>
            </div>
          </dl>
          {serve.data.message && <p className="muted">{serve.data.message}</p>}
          {serve.data.serve.handlers.length > 0 && (
            <div className="rows-scroll">
              <table className="data-table" aria-label="Serve handlers">
                <thead>
                  <tr>
                    <th scope="col">Listener</th>
                    <th scope="col">Path</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Target</th>
                  </tr>
                </thead>
                <tbody>
                  {serve.data.serve.handlers.map((h) => (
                    <tr key={h.listener + h.path}>
                      <th scope="row">{h.listener}</th>
                      <td>{h.path}</td>
                      <td>{h.kind}</td>
                      <td>{h.target}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <p className="muted">Checked {formatTime(serve.data.checked_at)}</p>
        </>
      )}
    </section>
  );
}
