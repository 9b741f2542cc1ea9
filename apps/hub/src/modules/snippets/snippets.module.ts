import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { snippetRoutes } from './snippets.routes.js';
import { createSnippetService } from './snippets.service.js';

/** Saved terminal snippets, personal or shared (decision 0091); a deleted key's personal ones go with it. */
export function createSnippetsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  logger: Logger;
}) {
  const snippets = createSnippetService(deps);
  return defineModule({
    name: 'snippets',
    services: { snippets },
    handlers: snippetRoutes(snippets),
    subscribers: [
      subscriber(['api_key.deleted'], (event) => {
        snippets
          .forgetOwner({ owner_type: 'api_key', owner_id: event.data.key_id })
          .catch((error: unknown) => {
            deps.logger.error({ err: error }, 'snippets: removing a deleted key’s snippets failed');
          });
      }),
    ],
  });
}
