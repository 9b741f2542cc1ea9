import type { ConnectorService } from '../connectors/connectors.service.js';
import { defineModule } from '../module.js';
import { backupRoutes } from './backup.routes.js';
import { createBackupService } from './backup.service.js';

/** Backups (Proxmox Backup Server): datastores with usage and the last backup per group. */
export function createBackupModule(deps: { connectors: ConnectorService }) {
  const backup = createBackupService(deps);
  return defineModule({ name: 'backup', services: { backup }, handlers: backupRoutes(backup) });
}
