import { describe, expect, it } from 'vitest';
import {
  clockOf,
  minutesOf,
  mobileSettingDefaults,
  readMobileSettings,
  storageKeyOf,
  writeMobileSetting,
  type SettingsStore,
} from './settings';

function memoryStore(): SettingsStore & { map: Map<string, string> } {
  const map = new Map<string, string>();
  return {
    map,
    getItem: (key) => map.get(key) ?? null,
    setItem: (key, value) => void map.set(key, value),
    removeItem: (key) => void map.delete(key),
  };
}

describe('mobile settings', () => {
  it('has every key of the interface with its default', () => {
    expect(readMobileSettings(memoryStore())).toEqual({
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
    });
  });

  it('keeps a changed value under its svc.settings key, and a default as no key at all', () => {
    const store = memoryStore();
    expect(writeMobileSetting(store, 'pushMinimumSeverity', 'critical')).toEqual({ ok: true });
    expect(store.map.get('svc.settings.pushMinimumSeverity')).toBe('"critical"');
    expect(readMobileSettings(store).pushMinimumSeverity).toBe('critical');
    writeMobileSetting(store, 'pushMinimumSeverity', 'warning');
    expect(store.map.size).toBe(0);
  });

  it.each([
    ['pushDigestWindowSeconds', 3601],
    ['pushDigestWindowSeconds', -1],
    ['pushQuietHoursStartMinutes', 1440],
    ['allowUntrustedTLS', 'http://hub.example.net'],
  ] as const)('refuses %s = %s', (name, value) => {
    const store = memoryStore();
    const result = writeMobileSetting(store, name, value as never);
    expect(result.ok).toBe(false);
    expect(store.map.size).toBe(0);
  });

  it('reads a stored value that is not valid as the default', () => {
    const store = memoryStore();
    store.setItem(storageKeyOf('autoReconnect'), '"yes"');
    store.setItem(storageKeyOf('pushMinimumSeverity'), 'not json');
    expect(readMobileSettings(store).autoReconnect).toBe(mobileSettingDefaults.autoReconnect);
    expect(readMobileSettings(store).pushMinimumSeverity).toBe('warning');
  });

  it('writes clock times both ways', () => {
    expect(clockOf(22 * 60)).toBe('22:00');
    expect(clockOf(7 * 60 + 5)).toBe('07:05');
    expect(minutesOf('07:05')).toBe(425);
    expect(minutesOf('24:00')).toBeNull();
  });
});
