import type { AssetService } from '../assets/assets.service.js';
import type { GroupService } from '../groups/groups.service.js';
import { defineModule } from '../module.js';
import { searchRoutes } from './search.routes.js';
import { createSearchService } from './search.service.js';

/** Search over the assets and groups the caller may see, through those modules' services. */
export function createSearchModule(deps: {
  assets: Pick<AssetService, 'matching'>;
  groups: Pick<GroupService, 'matching'>;
}) {
  const search = createSearchService(deps);
  return defineModule({ name: 'search', services: { search }, handlers: searchRoutes(search) });
}
