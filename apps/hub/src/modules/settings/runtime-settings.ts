/**
 * The settings the hub holds in memory: code paths read policies here, so a change through the API applies at
 * once, without a restart (spec 2.7). Settings marked restart-required are read once at start by their
 * consumer; a change to them is stored and shown at once, and applied by the next start.
 */
import {
  settingDefinitions,
  settingKeys,
  type DiscoveryDefaults,
  type OutboundPrivateMode,
  type PolicyName,
  type SettingKey,
  type SettingValueOf,
} from '@svc/protocol';
import type { Executor } from '../../platform/db/schema.js';
import { resolveSettings, type ResolvedSettings, type SettingLayer } from '../../config/settings.js';
import { readSettings } from '../../platform/db/key-values.js';

export interface RuntimeSettings {
  /** Every setting's effective value and its source. */
  resolved(): ResolvedSettings;
  get<K extends SettingKey>(key: K): SettingValueOf<K>;
  /** The value stored through the API, if any: what overrides the parsed config for restart-required settings. */
  apiValue<K extends SettingKey>(key: K): SettingValueOf<K> | undefined;
  /** A restart-required setting whose effective value differs from the one this process started with. */
  isPendingRestart(key: SettingKey): boolean;
  policy(name: PolicyName): boolean;
  /** What the egress guard reads for private-network targets. */
  outboundAllowPrivate(): OutboundPrivateMode;
  discoveryDefaults(): DiscoveryDefaults;
  /** After a committed change: the new API layer, in memory at once. */
  applyStored(changes: Partial<Record<SettingKey, unknown>>): void;
  /** The whole API layer as the settings table holds it now (another process changed it, decision 0040). */
  replaceStored(stored: SettingLayer): void;
  /**
   * Calls `listener` after each `replaceStored`: what another process changed is in effect here only then, which
   * may be after its `settings.changed` event arrived. Returns the stop.
   */
  onReplaced(listener: () => void): () => void;
}

export function createRuntimeSettings(stored: SettingLayer, env: SettingLayer): RuntimeSettings {
  const api = new Map(Object.entries(stored) as [SettingKey, unknown][]);
  let resolved = resolveSettings(Object.fromEntries(api), env);
  const atStart = resolved;
  const replaced = new Set<() => void>();
  const get = <K extends SettingKey>(key: K): SettingValueOf<K> => resolved[key].value as SettingValueOf<K>;
  return {
    resolved: () => resolved,
    get,
    apiValue: (key) => (resolved[key].source === 'api' ? get(key) : undefined),
    isPendingRestart: (key) =>
      settingDefinitions[key].restartRequired && resolved[key].value !== atStart[key].value,
    policy: (name) => get(`policy.${name}_enabled`),
    outboundAllowPrivate: () => get('security.outbound_allow_private'),
    discoveryDefaults: () => ({
      container: get('services.discovery_default_container'),
      proxy_api: get('services.discovery_default_proxy_api'),
      port_scan: get('services.discovery_default_port_scan'),
      lan_scan: get('services.discovery_default_lan_scan'),
    }),
    applyStored(changes) {
      for (const key of Object.keys(changes) as SettingKey[]) {
        const value = changes[key];
        if (value === null || value === undefined) api.delete(key);
        else api.set(key, value);
      }
      resolved = resolveSettings(Object.fromEntries(api), env);
    },
    replaceStored(stored) {
      api.clear();
      for (const [key, value] of Object.entries(stored) as [SettingKey, unknown][]) api.set(key, value);
      resolved = resolveSettings(Object.fromEntries(api), env);
      for (const listener of [...replaced]) listener();
    },
    onReplaced(listener) {
      replaced.add(listener);
      return () => {
        replaced.delete(listener);
      };
    },
  };
}

async function storedSettings(db: Executor): Promise<SettingLayer> {
  const rows = await readSettings(db, settingKeys);
  const stored: SettingLayer = {};
  for (const key of settingKeys) {
    if (rows.has(key)) stored[key] = rows.get(key);
  }
  return stored;
}

/** At start: the API layer from the settings table, the env layer from the parsed config. */
export async function loadRuntimeSettings(db: Executor, env: SettingLayer): Promise<RuntimeSettings> {
  return createRuntimeSettings(await storedSettings(db), env);
}

/** Reads the settings table again into the settings in memory. */
export async function reloadRuntimeSettings(db: Executor, runtime: RuntimeSettings): Promise<void> {
  runtime.replaceStored(await storedSettings(db));
}
