/** Tailscale on the hub's host: the tailnet HTTPS name, what `tailscale serve` publishes, or why not known. */
import { useQuery } from '@tanstack/react-query';
import { hub } from '../../api/client';
import { EmptyState } from '../../components/EmptyState';
import { ErrorNotice } from '../../components/ErrorNotice';
import { Loading } from '../../components/Loading';
import { Time } from '../../components/Time';
import { useT } from '../../i18n/I18nProvider';

export function MeshvpnPage() {
  const { t, rich } = useT();
  const serve = useQuery({
    queryKey: ['meshvpn', 'serve'],
    queryFn: async () => (await hub.call('meshvpn.serve', {})).data,
    refetchInterval: 30_000,
  });
  return (
    <section className="page" aria-labelledby="meshvpn-title">
      <div className="page-header">
        <h1 id="meshvpn-title">{t('admin.section', { section: 'tailscale' })}</h1>
        <button
          type="button"
          onClick={() => {
            void serve.refetch();
          }}
          disabled={serve.isFetching}
        >
          {t('meshvpn.checkAgain')}
        </button>
      </div>
      {serve.isPending && <Loading label={t('meshvpn.asking')} />}
      {serve.isError && <ErrorNotice error={serve.error} retry={() => void serve.refetch()} />}
      {serve.isSuccess && !serve.data.available && (
        <EmptyState title={t('meshvpn.reason', { reason: serve.data.reason ?? 'unknown' })}>
          <p translate="no">{serve.data.message}</p>
          <p className="muted">{rich('meshvpn.checked', { time: <Time value={serve.data.checked_at} /> })}</p>
        </EmptyState>
      )}
      {serve.isSuccess && serve.data.available && (
        <>
          <dl className="facts" aria-label={t('meshvpn.facts')}>
            <div>
              <dt>{t('meshvpn.httpsName')}</dt>
              <dd translate="no">
                {serve.data.https_host ? (
                  <a href={`https://${serve.data.https_host}`}>{serve.data.https_host}</a>
                ) : (
                  <span className="state-bad" translate="yes">
                    {t('meshvpn.httpsOff')}
                  </span>
                )}
              </dd>
            </div>
            <div>
              <dt>{t('meshvpn.dnsName')}</dt>
              <dd translate="no">{serve.data.dns_name ?? '—'}</dd>
            </div>
            <div>
              <dt>{t('meshvpn.tailnet')}</dt>
              <dd translate="no">{serve.data.tailnet ?? '—'}</dd>
            </div>
            <div>
              <dt>{t('meshvpn.addresses')}</dt>
              <dd translate="no">{serve.data.tailscale_ips.join(', ') || '—'}</dd>
            </div>
            <div>
              <dt>{t('meshvpn.version')}</dt>
              <dd translate="no">{serve.data.version ?? '—'}</dd>
            </div>
            <div>
              <dt>{t('meshvpn.serve')}</dt>
              <dd>
                {serve.data.serve.configured ? (
                  <span className="state-ok">
                    {t('meshvpn.publishing', {
                      ports: serve.data.serve.tcp_ports.join(', '),
                      funnel: serve.data.serve.funnel ? 'yes' : 'no',
                      foreground: serve.data.serve.foreground ? 'yes' : 'no',
                    })}
                  </span>
                ) : (
                  t('meshvpn.nothingServed')
                )}
              </dd>
            </div>
          </dl>
          {serve.data.message && (
            <p className="muted" translate="no">
              {serve.data.message}
            </p>
          )}
          {serve.data.serve.handlers.length > 0 && (
            <div className="rows-scroll">
              <table className="data-table" aria-label={t('meshvpn.handlers')}>
                <thead>
                  <tr>
                    <th scope="col">{t('meshvpn.listener')}</th>
                    <th scope="col">{t('meshvpn.path')}</th>
                    <th scope="col">{t('meshvpn.kind')}</th>
                    <th scope="col">{t('meshvpn.target')}</th>
                  </tr>
                </thead>
                <tbody>
                  {serve.data.serve.handlers.map((h) => (
                    <tr key={h.listener + h.path} translate="no">
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
          <p className="muted">{rich('meshvpn.checked', { time: <Time value={serve.data.checked_at} /> })}</p>
        </>
      )}
    </section>
  );
}
