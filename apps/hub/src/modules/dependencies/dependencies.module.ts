import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import type { EdgeSource } from './dependency-graph.js';
import { dependencyRoutes } from './dependencies.routes.js';
import { createDependencyService, type ContainerInventory } from './dependencies.service.js';

/** The infrastructure graph and declared links; a deleted asset's links go with it. */
export function createDependenciesModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  logger: Logger;
  assets: Pick<AssetService, 'matching' | 'missingIds'>;
  edgeSources?: readonly EdgeSource[];
  containers?: ContainerInventory;
}) {
  const dependencies = createDependencyService(deps);
  return defineModule({
    name: 'dependencies',
    services: { dependencies },
    handlers: dependencyRoutes(dependencies),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        dependencies.forgetAsset(event.data.asset_id).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'dependencies: removing a deleted asset’s links failed');
        });
      }),
    ],
  });
}
