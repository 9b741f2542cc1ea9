import type { Kysely } from 'kysely';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { WriteVersions } from '../../platform/db/write-versions.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { createAssetListCache } from './asset-list-cache.js';
import { assetRoutes } from './assets.routes.js';
import { createAssetService } from './assets.service.js';
import { createConnectorAssetService } from './connector-assets.service.js';

export interface AssetsModuleDeps {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  gateway: Pick<AgentGateway, 'isConnected' | 'disconnect'>;
  /** SQLite's write counters: list pages are kept while nothing they show has changed (null on PostgreSQL). */
  writeVersions: WriteVersions | null;
}

/** Assets: the fleet's machines and devices; every other module reads and adds them through its service. */
export function createAssetsModule(deps: AssetsModuleDeps) {
  const { gateway, writeVersions } = deps;
  const assets = createAssetService({
    db: deps.db,
    clock: deps.clock,
    audit: deps.audit,
    events: deps.events,
    isConnected: (id) => gateway.isConnected(id),
    disconnectAgent: (id) => {
      gateway.disconnect(id, 'asset deleted');
    },
    ...(writeVersions ? { listCache: createAssetListCache(() => String(writeVersions.of('assets'))) } : {}),
  });
  const connectorAssets = createConnectorAssetService({
    db: deps.db,
    clock: deps.clock,
    events: deps.events,
  });
  return defineModule({
    name: 'assets',
    services: { assets, connectorAssets },
    handlers: assetRoutes(assets),
  });
}
