/** Fleet at a glance: counts by status, active alerts, every asset (the last known state when offline). */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import type { Alert, Asset } from '@svc/protocol';
import { hub } from '../../api/client';
import { useSession } from '../../app/session';
import { formatNumber } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { loadSnapshot, saveSnapshot } from './fleet-snapshot';

interface FleetData {
  assets: Asset[];
  alerts: Alert[];
}

/** Assets and active alerts together, saved as the snapshot the app shows offline. */
function useFleet(stale: boolean) {
  const { user } = useSession();
  return useQuery({
    queryKey: ['mobile', 'fleet'],
    enabled: !stale,
    queryFn: async (): Promise<FleetData> => {
      const [assets, alerts] = await Promise.all([
        hub.call('assets.list', { query: { per_page: 200 } }),
        hub.call('alerts.list', { query: { status: 'active', per_page: 100 } }),
      ]);
      const data = { assets: assets.data, alerts: alerts.data };
      saveSnapshot({ savedAt: new Date().toISOString(), user, ...data });
      return data;
    },
    placeholderData: () => {
      const snapshot = loadSnapshot();
      return snapshot ? { assets: snapshot.assets, alerts: snapshot.alerts } : undefined;
    },
  });
}

export function FleetScreen({ stale }: { stale: boolean }) {
  const { t } = useT();
  const fleet = useFleet(stale);
  const data = fleet.data;
  if (!data)
    return <p className="m-muted">{t(fleet.isError ? 'mobile.fleetFailed' : 'mobile.fleetLoading')}</p>;
  const online = data.assets.filter((a) => a.status === 'online').length;
  const critical = data.alerts.filter((a) => a.severity === 'critical').length;
  return (
    <section aria-labelledby="m-fleet-title" className={stale ? 'm-stale' : undefined}>
      <h1 id="m-fleet-title">{t('mobile.fleet')}</h1>
      <dl className="m-stats">
        <div>
          <dt>{t('mobile.online')}</dt>
          <dd>
            {t('mobile.onlineOf', { online: formatNumber(online), total: formatNumber(data.assets.length) })}
          </dd>
        </div>
        <div>
          <dt>{t('mobile.activeAlerts')}</dt>
          <dd>{formatNumber(data.alerts.length)}</dd>
        </div>
        <div>
          <dt>{t('mobile.critical')}</dt>
          <dd className={critical > 0 ? 'm-bad' : undefined}>{formatNumber(critical)}</dd>
        </div>
      </dl>
      <ul className="m-list" aria-label={t('mobile.assets')}>
        {data.assets.map((asset) => (
          <li key={asset.id}>
            <Link to={`/m/assets/${asset.id}`}>
              <span className={`m-dot m-dot-${asset.status}`} aria-hidden="true" />
              <span className="m-name" translate="no">
                {asset.name}
              </span>
              <span className="m-muted">{t('asset.status', { status: asset.status })}</span>
            </Link>
          </li>
        ))}
      </ul>
    </section>
  );
}
