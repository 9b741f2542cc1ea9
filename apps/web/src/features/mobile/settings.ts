/**
 * The mobile app's settings (interface 2.7, "Mobile app settings"): every `svc.settings.*` key with its
 * default, kept in this device's localStorage only: never sent to the hub, never synced between devices.
 * The push routing a device chooses is sent with its push subscription, as that subscription's routing
 * (docs/decisions/0032-mobile-offline-queue-and-push.md), not as settings.
 */
import type { NotificationSeverity } from '@svc/protocol';

export interface MobileSettings {
  mobileClientTelemetry: boolean;
  autoReconnect: boolean;
  connectionDebugBanner: boolean;
  queueOfflineActions: boolean;
  requireBiometricRemoteAccess: boolean;
  /** The exact HTTPS hub origin an untrusted certificate is allowed for; null is "disabled". */
  allowUntrustedTLS: string | null;
  pushMinimumSeverity: NotificationSeverity;
  pushQuietHoursEnabled: boolean;
  /** Minutes after midnight, device time. */
  pushQuietHoursStartMinutes: number;
  pushQuietHoursEndMinutes: number;
  pushDigestWindowSeconds: number;
  liveActivitiesEnabled: boolean;
  liveActivitiesAutoStartHigh: boolean;
  liveActivitiesSessionEnabled: boolean;
  liveActivitiesShowFullDetails: boolean;
}

export type MobileSettingName = keyof MobileSettings;

export const mobileSettingDefaults: Readonly<MobileSettings> = {
  mobileClientTelemetry: false,
  autoReconnect: true,
  connectionDebugBanner: false,
  queueOfflineActions: true,
  requireBiometricRemoteAccess: true,
  allowUntrustedTLS: null,
  pushMinimumSeverity: 'warning',
  pushQuietHoursEnabled: false,
  pushQuietHoursStartMinutes: 22 * 60,
  pushQuietHoursEndMinutes: 7 * 60,
  pushDigestWindowSeconds: 180,
  liveActivitiesEnabled: true,
  liveActivitiesAutoStartHigh: false,
  liveActivitiesSessionEnabled: true,
  liveActivitiesShowFullDetails: false,
};

const mobileSettingNames = Object.keys(mobileSettingDefaults) as MobileSettingName[];

/** The longest digest window a device may ask for: the hub's limit for channels (one hour). */
const maxDigestWindowSeconds = 3600;

export function storageKeyOf(name: MobileSettingName): string {
  return `svc.settings.${name}`;
}

const severities: readonly NotificationSeverity[] = ['info', 'warning', 'critical'];

function isMinutes(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 24 * 60;
}

/** A stored value of one setting, or undefined when it is not a valid value (the default then applies). */
function parseSetting(
  name: MobileSettingName,
  value: unknown,
): MobileSettings[MobileSettingName] | undefined {
  switch (name) {
    case 'allowUntrustedTLS':
      return value === null || (typeof value === 'string' && value.startsWith('https://'))
        ? value
        : undefined;
    case 'pushMinimumSeverity':
      return severities.find((s) => s === value);
    case 'pushQuietHoursStartMinutes':
    case 'pushQuietHoursEndMinutes':
      return isMinutes(value) ? value : undefined;
    case 'pushDigestWindowSeconds':
      return typeof value === 'number' &&
        Number.isInteger(value) &&
        value >= 0 &&
        value <= maxDigestWindowSeconds
        ? value
        : undefined;
    case 'mobileClientTelemetry':
    case 'autoReconnect':
    case 'connectionDebugBanner':
    case 'queueOfflineActions':
    case 'requireBiometricRemoteAccess':
    case 'pushQuietHoursEnabled':
    case 'liveActivitiesEnabled':
    case 'liveActivitiesAutoStartHigh':
    case 'liveActivitiesSessionEnabled':
    case 'liveActivitiesShowFullDetails':
      return typeof value === 'boolean' ? value : undefined;
  }
}

/** Where settings are kept: localStorage in the app, a Map in tests. */
export interface SettingsStore {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export function readMobileSettings(store: SettingsStore): MobileSettings {
  const settings: MobileSettings = { ...mobileSettingDefaults };
  for (const name of mobileSettingNames) {
    const raw = store.getItem(storageKeyOf(name));
    if (raw === null) continue;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      continue;
    }
    const parsed = parseSetting(name, value);
    if (parsed !== undefined) Object.assign(settings, { [name]: parsed });
  }
  return settings;
}

export type SettingWrite = { ok: true } | { ok: false; problem: string };

export function writeMobileSetting<K extends MobileSettingName>(
  store: SettingsStore,
  name: K,
  value: MobileSettings[K],
): SettingWrite {
  if (parseSetting(name, value) === undefined) {
    return { ok: false, problem: `${storageKeyOf(name)}: ${JSON.stringify(value)} is not a valid value` };
  }
  if (value === mobileSettingDefaults[name]) store.removeItem(storageKeyOf(name));
  else store.setItem(storageKeyOf(name), JSON.stringify(value));
  return { ok: true };
}

/** `HH:MM` of minutes after midnight. */
export function clockOf(minutes: number): string {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`;
}

/** Minutes after midnight of `HH:MM`, or null. */
export function minutesOf(clock: string): number | null {
  const match = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(clock);
  if (!match) return null;
  return Number(match[1]) * 60 + Number(match[2]);
}
