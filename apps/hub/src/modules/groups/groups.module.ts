import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { groupRoutes } from './groups.routes.js';
import { createGroupService } from './groups.service.js';

/** Groups of assets: named sets a caller sees through its allowed assets, and fans commands out to. */
export function createGroupsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  assets: Pick<AssetService, 'missingIds'>;
}) {
  const groups = createGroupService(deps);
  return defineModule({ name: 'groups', services: { groups }, handlers: groupRoutes(groups) });
}
