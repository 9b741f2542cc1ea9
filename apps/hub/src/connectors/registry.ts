/**
 * Connector kinds → their drivers. A kind whose driver is not built yet is null: connectors of it cannot be
 * added. One line per kind.
 */
import type { ConnectorKind } from '@svc/protocol';
import type { ConnectorDriver } from './base/connector.js';

export const connectorDrivers: Record<ConnectorKind, ConnectorDriver | null> = {
  virt: null,
  backup: null,
  nas: null,
  stacks: null,
  homeauto: null,
};
