import type { Asset } from '@svc/protocol';
import { readStringList } from '../../platform/db/paging.js';
import type { AssetRow } from './assets.repository.js';

export function presentAsset(row: AssetRow, isConnected = false): Asset {
  return {
    id: row.id,
    name: row.name,
    hostname: row.hostname,
    platform: row.platform as Asset['platform'],
    status: row.status as Asset['status'],
    source: row.source as Asset['source'],
    ip_addresses: readStringList(row.ip_addresses),
    mac_address: row.mac_address,
    tags: readStringList(row.tags),
    description: row.description,
    last_seen_at: row.last_seen_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
    agent:
      row.source === 'agent'
        ? { connected: isConnected, version: row.agent_version, connected_at: row.agent_connected_at }
        : null,
    hub_host: row.hub_host === 1,
    ...(row.source === 'connector' && row.connector_id && row.external_id
      ? {
          connector: {
            connector_id: row.connector_id,
            kind: row.connector_kind ?? 'unknown',
            external_id: row.external_id,
          },
        }
      : {}),
  };
}
