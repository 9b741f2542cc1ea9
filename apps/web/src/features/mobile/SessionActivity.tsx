/**
 * Session activity (`liveActivitiesSessionEnabled`; decision 0033): while a remote session runs, a persistent
 * notification says so, redacted unless `liveActivitiesShowFullDetails`; it closes when the session ends.
 */
import { useEffect } from 'react';
import { currentSettings } from './device';

export function SessionActivity({ assetId, kind }: { assetId: string; kind: 'terminal' | 'desktop' }) {
  useEffect(() => {
    const settings = currentSettings();
    if (!settings.liveActivitiesEnabled || !settings.liveActivitiesSessionEnabled) return;
    if (!('serviceWorker' in navigator) || Notification.permission !== 'granted') return;
    const tag = `session-${assetId}`;
    let ended = false;
    void navigator.serviceWorker.getRegistration('/m/').then(async (registration) => {
      if (!registration || ended) return;
      await registration.showNotification('svc hub: session running', {
        tag,
        requireInteraction: true,
        silent: true,
        body: settings.liveActivitiesShowFullDetails
          ? `${kind} session on ${assetId}`
          : 'A remote session is open',
        data: { url: `/m/assets/${assetId}` },
      });
    });
    return () => {
      ended = true;
      void navigator.serviceWorker.getRegistration('/m/').then(async (registration) => {
        for (const n of (await registration?.getNotifications({ tag })) ?? []) n.close();
      });
    };
  }, [assetId, kind]);
  return null;
}
