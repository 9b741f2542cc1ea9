/** Backups (Proxmox Backup Server) through its connectors: the datastores of one backup-server asset. */
import type { BackupDatastores } from '@svc/protocol';
import type { Principal } from '../../access/principal.js';
import { createBackupClient } from '../../connectors/backup/backup.client.js';
import { readDatastores } from '../../connectors/backup/backup.connector.js';
import type { ConnectorService } from '../connectors/connectors.service.js';

export interface BackupService {
  datastores(principal: Principal, assetId: string): Promise<BackupDatastores>;
}

export function createBackupService(deps: { connectors: ConnectorService }): BackupService {
  const { connectors } = deps;
  return {
    async datastores(principal, assetId) {
      const { asset, connector } = await connectors.resolveAsset(principal, assetId, 'backup');
      const datastores = await connectors.call(connector, (ctx) => readDatastores(createBackupClient(ctx)));
      return { asset_id: asset.id, connector_id: connector.id, datastores };
    },
  };
}
