import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { AuditService } from './audit.service.js';

export function auditRoutes(audit: AuditService) {
  return {
    'audit.list': ({ query, ctx }) => audit.list(ctx, query, pageRequest(query)),
  } satisfies Handlers;
}
