import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { RetentionTask } from '../../platform/retention.js';
import { defineModule } from '../module.js';
import { deleteAuditEventsBefore } from './audit.repository.js';
import { auditRoutes } from './audit.routes.js';
import { createAuditService } from './audit.service.js';

/**
 * The audit trail: every other module records into it inside its own transactions; admins read it. Events
 * older than `retention.audit_days` (read at each retention run) are purged in batches.
 */
export function createAuditModule(deps: { db: Kysely<Database>; clock: Clock; retentionDays: () => number }) {
  const { db } = deps;
  const audit = createAuditService(deps);
  const retention: RetentionTask = {
    name: 'audit_events',
    days: deps.retentionDays,
    purgeBatch: (cutoff, limit) => deleteAuditEventsBefore(db, cutoff, limit),
  };
  return defineModule({
    name: 'audit',
    services: { audit },
    handlers: auditRoutes(audit),
    retention: [retention],
  });
}
