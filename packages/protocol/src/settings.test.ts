import { Value } from 'typebox/value';
import { describe, expect, it } from 'vitest';
import { settingDefinitions, settingDomains, settingKeys, type SettingDefinition } from './settings.js';

const entries = settingKeys.map((key) => [key, settingDefinitions[key] as SettingDefinition] as const);

describe('runtime settings catalog', () => {
  it.each(entries)('%s: its default passes its own schema', (_key, definition) => {
    expect(Value.Check(definition.schema, definition.default)).toBe(true);
  });

  it('names env vars with the SVC_ prefix, each used once', () => {
    const envs = entries.flatMap(([, d]) => (d.env === undefined ? [] : [d.env]));
    expect(envs.filter((name) => !/^SVC_[A-Z0-9_]+$/.test(name))).toEqual([]);
    expect(new Set(envs).size).toBe(envs.length);
  });

  it('has keys in every domain of spec 2.7, and the keys the spec names', () => {
    expect(new Set(entries.map(([, d]) => d.domain))).toEqual(new Set(settingDomains));
    expect(settingKeys).toEqual(
      expect.arrayContaining([
        'security.outbound_allow_private',
        'policy.structured_enabled',
        'policy.interactive_enabled',
        'policy.connector_enabled',
        'services.discovery_default_container',
        'services.discovery_default_proxy_api',
        'services.discovery_default_port_scan',
        'services.discovery_default_lan_scan',
      ]),
    );
    expect(settingDefinitions['security.outbound_allow_private'].env).toBe('SVC_OUTBOUND_ALLOW_PRIVATE');
  });

  it('keeps the spec defaults: policies on, discovery on but the LAN scan, private outbound auto', () => {
    expect(entries.filter(([key]) => key.startsWith('policy.')).map(([key, d]) => [key, d.default])).toEqual([
      ['policy.structured_enabled', true],
      ['policy.interactive_enabled', true],
      ['policy.connector_enabled', true],
      ['policy.mcp_enabled', true],
    ]);
    expect(settingDefinitions['services.discovery_default_lan_scan'].default).toBe(false);
    expect(settingDefinitions['security.outbound_allow_private'].default).toBe('auto');
  });
});
