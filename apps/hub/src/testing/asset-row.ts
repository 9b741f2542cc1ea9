import type { AssetRow } from '../modules/assets/assets.repository.js';

/** An assets row for tests that write the table directly: a manual, never-seen asset unless told otherwise. */
export function assetRow(id: string, overrides: Partial<AssetRow> = {}): AssetRow {
  const now = overrides.created_at ?? '2026-11-23T00:00:00.000Z';
  return {
    id,
    name: id,
    hostname: null,
    platform: 'linux',
    status: 'unknown',
    source: 'manual',
    ip_addresses: '[]',
    mac_address: null,
    tags: '[]',
    description: null,
    last_seen_at: null,
    agent_version: null,
    agent_connected_at: null,
    agent_low_power: null,
    hub_host: 0,
    created_at: now,
    updated_at: now,
    ...overrides,
  };
}
