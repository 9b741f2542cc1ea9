import { describe, expect, it } from 'vitest';
import { settingDefinitions, type SettingDefinitions } from '@svc/protocol';
import { ConfigError, parseEnv } from './env.js';
import { parseSettingText, readSettingsEnv, resolveSettings, type SettingLayer } from './settings.js';

describe('resolveSettings: API value, then env, then the code default (spec 2.7)', () => {
  const key = 'security.outbound_allow_private';
  const rows: [name: string, stored: SettingLayer, env: SettingLayer, value: unknown, source: string][] = [
    ['nothing set: the default', {}, {}, 'auto', 'default'],
    ['env only', {}, { [key]: 'false' }, 'false', 'env'],
    ['API only', { [key]: 'true' }, {}, 'true', 'api'],
    ['API beats env', { [key]: 'true' }, { [key]: 'false' }, 'true', 'api'],
    [
      'a stored value the catalog refuses falls back to env',
      { [key]: 'maybe' },
      { [key]: 'false' },
      'false',
      'env',
    ],
    ['a stored value of the wrong type falls back to the default', { [key]: 1 }, {}, 'auto', 'default'],
    [
      'an env value the catalog refuses falls back to the default',
      {},
      { [key]: 'always' },
      'auto',
      'default',
    ],
  ];
  it.each(rows)('%s', (_name, stored, env, value, source) => {
    expect(resolveSettings(stored, env)[key]).toEqual({ value, source });
  });

  it('resolves every key of the catalog, each from its own layers', () => {
    const resolved = resolveSettings(
      { 'policy.interactive_enabled': false },
      { 'retention.metrics_days': 30, 'policy.interactive_enabled': true },
    );
    expect(Object.keys(resolved).sort()).toEqual(Object.keys(settingDefinitions).sort());
    expect(resolved['policy.interactive_enabled']).toEqual({ value: false, source: 'api' });
    expect(resolved['retention.metrics_days']).toEqual({ value: 30, source: 'env' });
    expect(resolved['policy.structured_enabled']).toEqual({ value: true, source: 'default' });
    expect(resolved['services.discovery_default_lan_scan']).toEqual({ value: false, source: 'default' });
  });

  it('takes the defaults it is given (a catalog of its own)', () => {
    const definitions = {
      ...settingDefinitions,
      'retention.metrics_days': { ...settingDefinitions['retention.metrics_days'], default: 3 },
    } satisfies SettingDefinitions;
    expect(resolveSettings({}, {}, definitions)['retention.metrics_days']).toEqual({
      value: 3,
      source: 'default',
    });
    // Range checks come from the catalog: 0 days is refused, so the default applies.
    expect(
      resolveSettings({ 'retention.metrics_days': 0 }, {}, definitions)['retention.metrics_days'].source,
    ).toBe('default');
  });
});

describe('setting values from env text', () => {
  it.each([
    ['policy.connector_enabled', 'off', { ok: true, value: false }],
    ['policy.connector_enabled', 'YES', { ok: true, value: true }],
    ['retention.metrics_days', ' 30 ', { ok: true, value: 30 }],
    ['security.outbound_allow_private', 'false', { ok: true, value: 'false' }],
  ] as const)('%s = "%s" parses', (key, raw, expected) => {
    expect(parseSettingText(key, raw, settingDefinitions)).toEqual(expected);
  });

  it.each([
    ['policy.connector_enabled', 'maybe'],
    ['retention.metrics_days', '1.5'],
    ['retention.metrics_days', '0'],
    ['security.outbound_allow_private', 'yes'],
  ] as const)('%s = "%s" is refused', (key, raw) => {
    expect(parseSettingText(key, raw, settingDefinitions).ok).toBe(false);
  });

  it('reads only the env vars the catalog names, and names the variable in a problem', () => {
    const read = readSettingsEnv({
      SVC_METRICS_RETENTION_DAYS: '14',
      SVC_OUTBOUND_ALLOW_PRIVATE: 'sometimes',
      OTHER: '1',
    });
    expect(read.values).toEqual({ 'retention.metrics_days': 14 });
    expect(read.problems).toEqual(['SVC_OUTBOUND_ALLOW_PRIVATE is out of range, got "sometimes"']);
  });

  it('a start with an invalid SVC_OUTBOUND_ALLOW_PRIVATE is refused, naming it', () => {
    expect(() => parseEnv({ SVC_OUTBOUND_ALLOW_PRIVATE: 'sometimes' }, '/srv')).toThrow(ConfigError);
    expect(() => parseEnv({ SVC_OUTBOUND_ALLOW_PRIVATE: 'sometimes' }, '/srv')).toThrow(
      /SVC_OUTBOUND_ALLOW_PRIVATE/,
    );
    expect(parseEnv({ SVC_OUTBOUND_ALLOW_PRIVATE: 'false' }, '/srv').settingsEnv).toEqual({
      'security.outbound_allow_private': 'false',
    });
  });
});
