import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { bookmarkRoutes } from './bookmarks.routes.js';
import { createBookmarkService } from './bookmarks.service.js';

/** Terminal bookmarks: an asset and a working directory, per user (decision 0091); gone with their asset or key. */
export function createBookmarksModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  logger: Logger;
  assets: Pick<AssetService, 'missingIds'>;
}) {
  const bookmarks = createBookmarkService(deps);
  return defineModule({
    name: 'bookmarks',
    services: { bookmarks },
    handlers: bookmarkRoutes(bookmarks),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        bookmarks.forgetAsset(event.data.asset_id).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'bookmarks: removing a deleted asset’s bookmarks failed');
        });
      }),
      subscriber(['api_key.deleted'], (event) => {
        bookmarks
          .forgetOwner({ owner_type: 'api_key', owner_id: event.data.key_id })
          .catch((error: unknown) => {
            deps.logger.error({ err: error }, 'bookmarks: removing a deleted key’s bookmarks failed');
          });
      }),
    ],
  });
}
