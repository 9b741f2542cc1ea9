import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import type { AuditService } from '../audit/audit.service.js';
import type { MaintenanceService } from '../maintenance/maintenance.service.js';
import type { MetricsService } from '../metrics/metrics.service.js';
import type { SystemService } from '../system/system.service.js';
import { defineModule, subscriber } from '../module.js';
import { createAlertEvaluator } from './alert-evaluator.service.js';
import { createAlertRuleService } from './alert-rules.service.js';
import { alertRoutes } from './alerts.routes.js';
import { createAlertService } from './alerts.service.js';

/**
 * Alerts: rules over presence, metrics and services, evaluated in the background; the alerts they raise, acknowledged
 * and silenced by people. The incidents module answers the incident routes from this module's service.
 */
export function createAlertsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  audit: AuditService;
  events: EventBus;
  assets: Pick<AssetService, 'missingIds' | 'presence'>;
  metrics: Pick<MetricsService, 'recentSamples'>;
  /** The agents' service states, for service rules. */
  services: Pick<SystemService, 'serviceStates'>;
  /** Which assets are in a maintenance window now. */
  maintenance: Pick<MaintenanceService, 'holding'>;
  /** The service checks about assets (the checks module, built later), for check rules. */
  checks: Parameters<typeof createAlertEvaluator>[0]['checks'];
  intervalMs: number;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}) {
  const alerts = createAlertService(deps);
  const rules = createAlertRuleService({
    ...deps,
    onRemoved: (_ctx, ruleId) => alerts.resolveWhere((a) => a.rule_id === ruleId),
  });
  const evaluator = createAlertEvaluator({ ...deps, rules, alerts });
  return defineModule({
    name: 'alerts',
    services: { alerts, alertRules: rules, evaluator },
    handlers: alertRoutes(alerts, rules),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        const { asset_id: assetId } = event.data;
        alerts
          .resolveWhere((a) => a.asset_id === assetId)
          .catch((error: unknown) => {
            deps.logger.error({ err: error }, 'resolving the alerts of a deleted asset failed');
          });
      }),
      // A service just stopped through the hub: judge the rules watching it now rather than at the next tick.
      subscriber(['service.stopped'], (event) => {
        const { asset_id: assetId, name } = event.data;
        evaluator.checkService(assetId, name).catch((error: unknown) => {
          deps.logger.error({ err: error }, 'evaluating service rules after a service stopped failed');
        });
      }),
    ],
    start: () => {
      evaluator.start();
    },
    close: () => evaluator.close(),
  });
}
