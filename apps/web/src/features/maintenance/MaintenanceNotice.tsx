/**
 * "In maintenance" on the asset, group, alerts and schedules pages: which of the shown assets a window holds
 * now, until when. Reads `GET /maintenance/active` once for the page; says nothing when none is held.
 */
import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { hub } from '../../api/client';
import { formatTime } from '../../components/units';
import { useT } from '../../i18n/I18nProvider';
import { maintenanceActiveKey } from './maintenance-keys';

function useMaintenanceActive() {
  return useQuery({
    queryKey: maintenanceActiveKey,
    queryFn: async () => (await hub.call('maintenance.active')).data,
    refetchInterval: 30_000,
  });
}

/** The notice for these assets (all of them when `assetIds` is absent). */
export function MaintenanceNotice({ assetIds, label }: { assetIds?: readonly string[]; label: string }) {
  const { t, rich } = useT();
  const active = useMaintenanceActive();
  const held = (active.data ?? []).filter((a) => assetIds === undefined || assetIds.includes(a.asset_id));
  if (held.length === 0) return null;
  const until = held.reduce((last, a) => (a.until > last ? a.until : last), '');
  return (
    <p className="notice warning" role="status" data-testid="maintenance-notice">
      {rich('maintenance.notice', {
        title: <strong>{t('maintenance.title')}</strong>,
        label,
        count: held.length,
        until: formatTime(until),
        link: <Link to="/maintenance">{t('maintenance.suppressed')}</Link>,
      })}
    </p>
  );
}
