import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import { defineModule } from '../module.js';
import { auditRoutes } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

/** The audit trail: every other module records into it inside its own transactions; admins read it. */
export function createAuditModule(deps: { db: Kysely<Database>; clock: Clock }) {
  const audit = createAuditService(deps);
  return defineModule({ name: 'audit', services: { audit }, handlers: auditRoutes(audit) });
}
