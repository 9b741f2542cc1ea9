import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { SecretBox } from '../../platform/secret-box.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule, subscriber } from '../module.js';
import { desktopRoutes } from './desktop.routes.js';
import { createDesktopCredentialService } from './desktop.service.js';

/** Desktop credentials: an asset's VNC password, write-only, released only to a desktop session create. */
export function createDesktopModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  box: SecretBox;
  audit: AuditService;
  logger: Logger;
  assets: Pick<AssetService, 'missingIds'>;
}) {
  const desktopCredentials = createDesktopCredentialService(deps);
  return defineModule({
    name: 'desktop',
    services: { desktopCredentials },
    handlers: desktopRoutes(desktopCredentials),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        desktopCredentials.forgetAsset(event.data.asset_id).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'desktop: removing a deleted asset’s password failed');
        });
      }),
    ],
  });
}
