/**
 * This device: its random id (for its push subscription, its authenticator and telemetry) and its settings,
 * both in localStorage; the settings the service worker needs are copied into IndexedDB.
 */
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

export function changeSetting<K extends MobileSettingName>(name: K, value: MobileSettings[K]): string | null {
  const result = writeMobileSetting(localStorage, name, value);
  if (!result.ok) return result.problem;
  void shareSettingsWithWorker(currentSettings()).catch(() => undefined);
  return null;
}
