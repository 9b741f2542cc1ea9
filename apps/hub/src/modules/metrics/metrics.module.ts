import type { Kysely } from 'kysely';
import type { AgentGateway } from '../../agents/agent-gateway.js';
import type { Clock } from '../../platform/clock.js';
import type { DatabaseDialect } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import type { Logger } from '../../platform/logger.js';
import type { AssetService } from '../assets/assets.service.js';
import { defineModule, subscriber } from '../module.js';
import { createMetricsBudget, type MetricsBudget } from './metrics-budget.js';
import { createMetricsExportService } from './metrics-export.service.js';
import { createMetricsPurger } from './metrics-purger.js';
import { createMetricRollups } from './metrics-rollups.js';
import { metricsRoutes } from './metrics.routes.js';
import { createMetricsService } from './metrics.service.js';
import { createMetricsStore, type MetricsStore } from './metrics.store.js';

export type { MetricsBudget } from './metrics-budget.js';
export type { MetricsPurger } from './metrics-purger.js';
export type { MetricRollups } from './metrics-rollups.js';
export type { MetricsStore } from './metrics.store.js';

/** Where agents' samples go: each agent's budget, then the batched store. */
export interface MetricsIntake {
  budget: MetricsBudget;
  store: MetricsStore;
}

/**
 * The intake is made before the agent gateway, which hands it every agent's samples; the metrics module,
 * made later, takes it over (its close flushes the store).
 */
export function createMetricsIntake(deps: {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  retentionDays: number;
  /** The collect interval the welcome announces; each agent's budget is derived from it. */
  collectIntervalS: number;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}): MetricsIntake {
  const { db, clock, logger, retentionDays } = deps;
  const store = createMetricsStore({
    db,
    clock,
    retentionDays,
    ...(deps.runsHere ? { runsHere: deps.runsHere } : {}),
    onError: (error) => {
      logger.error({ err: error }, 'metrics write failed');
    },
  });
  const budget = createMetricsBudget({
    sink: store,
    clock,
    logger,
    collectIntervalS: deps.collectIntervalS,
    retentionDays,
  });
  return { budget, store };
}

/**
 * Metrics: agents' samples stored through their budgets, read as one asset's history or a fleet overview,
 * and a deleted asset's history purged in the background once the assets module says it is gone.
 */
export function createMetricsModule(deps: {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  clock: Clock;
  logger: Logger;
  intake: MetricsIntake;
  gateway: Pick<AgentGateway, 'sessions'>;
  assets: Pick<AssetService, 'findRow' | 'count' | 'missingIds'>;
  /** False while another hub process holds this loop's lease (decision 0040): its timer then skips. */
  runsHere?: () => boolean;
}) {
  const { db, clock, logger, assets } = deps;
  const { budget, store } = deps.intake;
  const purger = createMetricsPurger({
    db,
    dialect: deps.dialect,
    flush: () => store.settled(),
    assets,
    ...(deps.runsHere ? { runsHere: deps.runsHere } : {}),
    onError: (error) => {
      logger.error({ err: error }, 'deleting the metric history of a deleted asset failed');
    },
  });
  const rollups = createMetricRollups({
    db,
    dialect: deps.dialect,
    clock,
    store,
    onError: (error) => {
      logger.error({ err: error }, 'metric rollups failed');
    },
  });
  const metrics = createMetricsService({ db, dialect: deps.dialect, clock, gateway: deps.gateway, assets });
  return defineModule({
    name: 'metrics',
    services: { metrics, budget, store, purger, rollups, exported: createMetricsExportService({ db }) },
    handlers: metricsRoutes(metrics),
    subscribers: [
      subscriber(['asset.deleted'], (event) => {
        budget.forget(event.data.asset_id);
        purger.purge(event.data.asset_id);
      }),
    ],
    // Samples a stopped hub left behind for assets it had deleted.
    start: () => {
      purger.start();
      // Every process rolls up what its own store wrote; at start, what no process has rolled up yet.
      rollups.start();
    },
    async close() {
      budget.close();
      await purger.close();
      await store.close();
      await rollups.close();
    },
  });
}
