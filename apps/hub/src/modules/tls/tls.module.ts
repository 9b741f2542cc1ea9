import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';
import type { TlsManager } from '../../platform/tls/tls-manager.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { tlsRawRoutes, tlsRoutes } from './tls.routes.js';
import { createTlsService } from './tls.service.js';

/**
 * TLS as agents and admins see it: what agents fetch before they trust the hub (`/api/v1/tls/*`), and the
 * service behind the certificate status and upload that the hub and settings modules answer.
 */
export function createTlsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  tls: TlsManager;
  invalidation?: Pick<CacheInvalidation, 'invalidate'>;
}) {
  const tls = createTlsService(deps);
  return defineModule({
    name: 'tls',
    services: { tls },
    handlers: tlsRoutes(tls),
    rawHandlers: tlsRawRoutes(tls),
  });
}
