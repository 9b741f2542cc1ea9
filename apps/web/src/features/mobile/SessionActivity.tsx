/**
 * Session activity (`liveActivitiesSessionEnabled`; decision 0033): while a remote session runs, a persistent
 * notification says so, redacted unless `liveActivitiesShowFullDetails`; it closes when the session ends.
 */
import { useEffect } from 'react';
import { useT } from '../../i18n/I18nProvider';
import { currentSettings } from './device';

export function SessionActivity({ assetId, kind }: { assetId: string; kind: 'terminal' | 'desktop' }) {
  const { t } = useT();
  useEffect(() => {
    const settings = currentSettings();
    if (!settings.liveActivitiesEnabled || !settings.liveActivitiesSessionEnabled) return;
    if (!('serviceWorker' in navigator) || Notification.permission !== 'granted') return;
    const tag = `session-${assetId}`;
    let ended = false;
    void navigator.serviceWorker.getRegistration('/m/').then(async (registration) => {
      if (!registration || ended) return;
      await registration.showNotification(t('mobile.sessionRunning'), {
        tag,
        requireInteraction: true,
        silent: true,
        body: settings.liveActivitiesShowFullDetails
          ? t('mobile.sessionOn', { kind, asset: assetId })
          : t('mobile.sessionOpen'),
        data: { url: `/m/assets/${assetId}` },
      });
    });
    return () => {
      ended = true;
      void navigator.serviceWorker.getRegistration('/m/').then(async (registration) => {
        for (const n of (await registration?.getNotifications({ tag })) ?? []) n.close();
      });
    };
  }, [assetId, kind, t]);
  return null;
}
