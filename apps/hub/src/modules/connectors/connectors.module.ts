import type { Telemetry } from '../../platform/telemetry/telemetry.js';
import type { ConnectorKind } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { ConnectorDriver } from '../../connectors/base/connector.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { LiveOutbound } from '../../platform/outbound/live-policy.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { ConnectorAssetService } from '../assets/connector-assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { connectorRoutes } from './connectors.routes.js';
import { createConnectorService, type ConnectorServiceOptions } from './connectors.service.js';

/** Connectors: the admin's list of upstreams, their health, and the one way modules call them. */
export function createConnectorsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  box: SecretBox;
  outbound: LiveOutbound;
  logger: Logger;
  connectorAssets: ConnectorAssetService;
  actionsEnabled: () => boolean;
  drivers?: Partial<Record<ConnectorKind, ConnectorDriver | null>>;
  options?: Partial<ConnectorServiceOptions>;
  telemetry?: Pick<Telemetry, 'connectorCall'>;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}) {
  const connectors = createConnectorService(deps);
  return defineModule({
    name: 'connectors',
    services: { connectors },
    handlers: connectorRoutes(connectors),
    start: () => {
      connectors.start();
    },
    close: () => connectors.close(),
  });
}
