/**
 * This device: its random id (for its push subscription, its authenticator and telemetry) and its settings,
 * both in localStorage; the settings the service worker needs are copied into IndexedDB.
 */
import type { Translator } from '../../i18n/translator';
import type { PushTexts } from '../../sw/push-texts';
import { put } from './device-store';
import {
  readMobileSettings,
  writeMobileSetting,
  type MobileSettingName,
  type MobileSettings,
} from './settings';

const deviceIdKey = 'svc.mobile.deviceId';

export function deviceId(): string {
  let id = localStorage.getItem(deviceIdKey);
  if (id === null) {
    id = `dev-${crypto.randomUUID().replace(/-/g, '').slice(0, 24)}`;
    localStorage.setItem(deviceIdKey, id);
  }
  return id;
}

export function currentSettings(): MobileSettings {
  return readMobileSettings(localStorage);
}

/** What the service worker reads to show pushes (it cannot read localStorage). */
export async function shareSettingsWithWorker(settings: MobileSettings): Promise<void> {
  await put(
    'kv',
    {
      liveActivitiesEnabled: settings.liveActivitiesEnabled,
      liveActivitiesAutoStartHigh: settings.liveActivitiesAutoStartHigh,
      liveActivitiesSessionEnabled: settings.liveActivitiesSessionEnabled,
      liveActivitiesShowFullDetails: settings.liveActivitiesShowFullDetails,
    },
    'settings',
  );
}

/**
 * The words of push notifications in the reader's language, for the service worker, which has no catalogue:
 * each `{name}` is left for the worker to fill from the push.
 */
export function pushTextsOf(t: Translator['t']): PushTexts {
  return {
    alertOne: t('mobile.pushAlertOne', { severity: '{severity}' }),
    alertsMany: t('mobile.pushAlertsMany', { count: '{count}', severity: '{severity}' }),
    incident: t('mobile.pushIncident', { severity: '{severity}' }),
    incidentOn: t('mobile.pushIncidentOn', { asset: '{asset}' }),
    locked: t('mobile.pushLocked'),
    severities: {
      info: t('alert.severity', { severity: 'info' }),
      warning: t('alert.severity', { severity: 'warning' }),
      critical: t('alert.severity', { severity: 'critical' }),
    },
  };
}

/** What the service worker writes its notifications with (it cannot read the app's catalogue). */
export async function sharePushTextsWithWorker(texts: PushTexts): Promise<void> {
  await put('kv', texts, 'pushTexts');
}

export function changeSetting<K extends MobileSettingName>(name: K, value: MobileSettings[K]): string | null {
  const result = writeMobileSetting(localStorage, name, value);
  if (!result.ok) return result.problem;
  void shareSettingsWithWorker(currentSettings()).catch(() => undefined);
  return null;
}
