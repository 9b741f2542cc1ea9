import { checkLimits } from '@svc/protocol';
import type { Kysely } from 'kysely';
import type { Database } from '../../platform/db/schema.js';
import type { RetentionTask } from '../../platform/retention.js';
import { defineModule } from '../module.js';
import { createCheckRunner, type CheckRunnerDeps } from './check-runner.js';
import { deleteResultsBefore } from './checks.repository.js';
import { checkRoutes } from './checks.routes.js';
import { createCheckService, type CheckServiceDeps } from './checks.service.js';

/**
 * Service checks (decision 0079): HTTP(S), TCP and ping probes run by the hub through its egress guard, on the
 * process holding the `checks` lease, or by a chosen agent on its own network (decision 0084), with a bounded
 * history, uptime and certificate expiry warnings.
 */
export function createChecksModule(
  deps: Omit<CheckServiceDeps, 'runner'> & CheckRunnerDeps & { db: Kysely<Database> },
) {
  const runner = createCheckRunner(deps);
  const checks = createCheckService({ ...deps, runner });
  const retention: RetentionTask = {
    name: 'service_check_results',
    days: () => checkLimits.resultRetentionDays,
    purgeBatch: (cutoff, limit) => deleteResultsBefore(deps.db, cutoff, limit),
  };
  return defineModule({
    name: 'checks',
    services: { checks, runner },
    handlers: checkRoutes(checks),
    retention: [retention],
    start: () => {
      runner.start();
    },
    close: () => runner.close(),
  });
}
