import type { Logger } from '../../platform/logger.js';
import { defineModule, subscriber } from '../module.js';
import { createUpdateReporter } from './update-reporter.js';
import { createUpdateRunner, type UpdateRunnerDeps } from './update-runner.js';
import { updatesRoutes } from './updates.routes.js';
import { createUpdatesService, type UpdatesServiceDeps } from './updates.service.js';

/**
 * Package updates (decision 0081): the agents' reports of available updates, asked every
 * `updates.check_hours`, the fleet view over them, and update runs (dry run or apply) executed by one process
 * each, now, at a time or in the next maintenance window.
 */
export function createUpdatesModule(
  deps: Omit<UpdatesServiceDeps, 'runner' | 'nodeId'> &
    UpdateRunnerDeps & {
      logger: Logger;
      checkHours: () => number;
      reporterPollMs?: number;
    },
) {
  const runner = createUpdateRunner(deps);
  const updates = createUpdatesService({ ...deps, runner, nodeId: deps.cluster?.nodeId ?? null });
  const reporter = createUpdateReporter({
    ...deps,
    gateway: deps.agents.gateway,
    updates,
    ...(deps.reporterPollMs !== undefined ? { pollMs: deps.reporterPollMs } : {}),
  });
  return defineModule({
    name: 'updates',
    services: { updates, runner, reporter },
    handlers: updatesRoutes(updates),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        updates.forgetAsset(event.data.asset_id).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'updates: removing a deleted asset’s report failed');
        });
      }),
    ],
    start: () => {
      runner.start();
      reporter.start();
    },
    close: async () => {
      await reporter.close();
      await runner.close();
    },
  });
}
