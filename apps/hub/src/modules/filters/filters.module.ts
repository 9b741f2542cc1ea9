import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { filterRoutes } from './filters.routes.js';
import { createAssetFilterService } from './filters.service.js';

/** Saved filters of the assets list, per user or key (decision 0096); gone with their key or user. */
export function createFiltersModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  logger: Logger;
}) {
  const filters = createAssetFilterService(deps);
  return defineModule({
    name: 'filters',
    services: { filters },
    handlers: filterRoutes(filters),
    subscribers: [
      subscriber(['api_key.deleted'], (event) => {
        filters
          .forgetOwner({ owner_type: 'api_key', owner_id: event.data.key_id })
          .catch((error: unknown) => {
            deps.logger.error({ err: error }, 'filters: removing a deleted key’s saved filters failed');
          });
      }),
    ],
  });
}
