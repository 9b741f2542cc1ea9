import type { Clock } from '../../platform/clock.js';
import type { AssetService } from '../assets/assets.service.js';
import type { GroupService } from '../groups/groups.service.js';
import { defineModule, subscriber } from '../module.js';
import { statusRoutes } from './status.routes.js';
import { createStatusAggregateService } from './status.service.js';

/**
 * `/status/aggregate`: counts for a status page, scoped to what the caller may see, cached briefly; an event
 * that changes the counts empties the cache, so a console refreshing on that event sees the new counts.
 */
export function createStatusModule(deps: {
  clock: Clock;
  assets: Pick<AssetService, 'countByStatus'>;
  groups: Pick<GroupService, 'count'>;
}) {
  const aggregate = createStatusAggregateService(deps);
  return defineModule({
    name: 'status',
    services: { aggregate },
    handlers: statusRoutes(aggregate),
    subscribers: [
      subscriber(
        [
          'asset.created',
          'asset.deleted',
          'asset.online',
          'asset.offline',
          'group.created',
          'group.updated',
          'group.deleted',
        ],
        () => {
          aggregate.forget();
        },
        // Each process caches the aggregate: a change made on any of them makes it stale.
        'cluster',
      ),
    ],
  });
}
