/**
 * The modules of what is done on the fleet's machines, in composition order (hub/modules.ts). A new area of
 * this kind is one entry in the returned list.
 */
import { createActionsModule } from '../modules/actions/actions.module.js';
import { createAlertsModule } from '../modules/alerts/alerts.module.js';
import { createBulkModule } from '../modules/bulk/bulk.module.js';
import { createContainersModule } from '../modules/containers/containers.module.js';
import { createEventsModule } from '../modules/events/events.module.js';
import { createExecModule } from '../modules/exec/exec.module.js';
import { createFilesModule } from '../modules/files/files.module.js';
import { createIncidentsModule } from '../modules/incidents/incidents.module.js';
import { createMaintenanceModule } from '../modules/maintenance/maintenance.module.js';
import { createPowerModule } from '../modules/power/power.module.js';
import { createSchedulesModule } from '../modules/schedules/schedules.module.js';
import { createSystemModule } from '../modules/system/system.module.js';
import { createUpdatesModule } from '../modules/updates/updates.module.js';
import type { AccountModules } from './account-modules.js';
import { baseOf, type ModuleParts } from './module-parts.js';

/** What is done on the fleet's machines, by hand, in bulk, on a schedule or when an alert fires. */
export function createOperationModules(
  parts: ModuleParts,
  accounts: AccountModules,
  later: { checkStates: Parameters<typeof createAlertsModule>[0]['checks'] },
) {
  const { config, logger, runtimeSettings, telemetry } = parts;
  const { bus, registry } = parts.cluster;
  const base = baseOf(parts, accounts.audit);
  const groups = accounts.groups.services.groups;
  const operations = { ...base, agents: parts.agents.agentCalls };
  const exec = createExecModule({
    ...operations,
    groups,
    structuredEnabled: () => runtimeSettings.policy('structured'),
    telemetry,
  });
  const system = createSystemModule(operations);
  // Built before what asks it whether an asset is in a window: schedules and alerts.
  const maintenance = createMaintenanceModule({
    ...base,
    logger,
    assets: accounts.assets.services.assets,
    groups,
  });
  const automation = { ...base, assets: parts.agents.agentCalls.assets, groups, exec: exec.services.exec };
  // Actions ask schedules whether one runs an action; schedules are built after the actions they load.
  const actions = createActionsModule({ ...automation, schedules: () => schedules.services.schedules });
  const schedules = createSchedulesModule({
    ...automation,
    actions: actions.services.actions,
    keys: accounts.keys.services.apiKeys,
    users: accounts.users.services.users,
    maintenance: maintenance.services.maintenance,
    logger,
    cluster: { nodeId: bus.nodeId, liveNodes: () => registry.liveNodes(), lease: registry },
  });
  const updates = createUpdatesModule({
    ...operations,
    groups,
    maintenance: maintenance.services.maintenance,
    keys: accounts.keys.services.apiKeys,
    users: accounts.users.services.users,
    logger,
    checkHours: () => runtimeSettings.get('updates.check_hours'),
    cluster: { nodeId: bus.nodeId, liveNodes: () => registry.liveNodes(), lease: registry },
  });
  const alerts = createAlertsModule({
    ...base,
    logger,
    assets: accounts.assets.services.assets,
    metrics: accounts.metrics.services.metrics,
    services: system.services.system,
    maintenance: maintenance.services.maintenance,
    checks: later.checkStates,
    intervalMs: config.alertIntervalS * 1000,
    runsHere: parts.cluster.runsHere('alerts'),
  });
  return {
    exec,
    files: createFilesModule(operations),
    system,
    power: createPowerModule({ ...operations, wolBroadcast: config.wolBroadcast }),
    containers: createContainersModule(operations),
    actions,
    schedules,
    maintenance,
    updates,
    bulk: createBulkModule({ ...operations, groups, system: system.services.system }),
    alerts,
    incidents: createIncidentsModule({ ...base, alerts: alerts.services.alerts }),
    events: createEventsModule({
      events: parts.cluster.events,
      credentials: parts.credentials,
      ...(parts.eventStream ? { limits: parts.eventStream } : {}),
    }),
  };
}

export type OperationModules = ReturnType<typeof createOperationModules>;
