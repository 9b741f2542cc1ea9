/**
 * Connector kinds → their drivers. A kind whose driver is not built yet is null: connectors of it cannot be
 * added. One line per kind.
 */
import type { ConnectorKind } from '@svc/protocol';
import type { ConnectorDriver } from './base/connector.js';
import { backupDriver } from './backup/backup.connector.js';
import { homeautoDriver } from './homeauto/homeauto.connector.js';
import { nasDriver } from './nas/nas.connector.js';
import { stacksDriver } from './stacks/stacks.connector.js';
import { virtDriver } from './virt/virt.connector.js';

export const connectorDrivers: Record<ConnectorKind, ConnectorDriver | null> = {
  virt: virtDriver,
  backup: backupDriver,
  nas: nasDriver,
  stacks: stacksDriver,
  homeauto: homeautoDriver,
};
