import type { Kysely } from 'kysely';
import type { VirtTaskOptions } from '../../connectors/virt/virt.client.js';
import type { Database } from '../../platform/db/schema.js';
import type { ConnectorAssetService } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { ConnectorService } from '../connectors/connectors.service.js';
import { defineModule } from '../module.js';
import { virtRoutes } from './virt.routes.js';
import { createVirtService } from './virt.service.js';

/** Virtualization (Proxmox VE): cluster, resources, guest start/stop, Ceph, through the virt connectors. */
export function createVirtModule(deps: {
  db: Kysely<Database>;
  audit: AuditService;
  connectors: ConnectorService;
  connectorAssets: ConnectorAssetService;
  task?: Partial<VirtTaskOptions>;
}) {
  const virt = createVirtService(deps);
  return defineModule({ name: 'virt', services: { virt }, handlers: virtRoutes(virt) });
}
