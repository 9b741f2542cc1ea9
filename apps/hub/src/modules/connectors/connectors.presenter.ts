import type { Connector } from '@svc/protocol';
import type { ConnectorRow } from './connectors.repository.js';

/** A connector as reads show it: whether it has credentials, never what they are. */
export function presentConnector(row: ConnectorRow, assetCount: number): Connector {
  return {
    id: row.id,
    kind: row.kind as Connector['kind'],
    name: row.name,
    base_url: row.base_url,
    username: row.username,
    has_credentials: row.credentials_sealed !== '',
    tls_mode: row.tls_mode as Connector['tls_mode'],
    tls_ca: row.tls_mode === 'pinned_ca' ? row.tls_ca : null,
    tls_fingerprint: row.tls_mode === 'fingerprint' ? row.tls_fingerprint : null,
    insecure: row.tls_mode === 'insecure',
    enabled: row.enabled === 1,
    health: row.health as Connector['health'],
    last_error: row.last_error,
    last_checked_at: row.last_checked_at,
    asset_count: assetCount,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}
