import type { Logger } from '../../platform/logger.js';
import type { EventBus } from '../../platform/event-bus.js';
import { defineModule } from '../module.js';
import { createMaintenanceAnnouncer } from './maintenance-announcer.service.js';
import { maintenanceRoutes } from './maintenance.routes.js';
import { createMaintenanceService, type MaintenanceServiceDeps } from './maintenance.service.js';

/**
 * Maintenance windows: when assets and groups are under maintenance (alerts then recorded suppressed, schedules
 * marked for it allowed to run), and the events of each occurrence's start and end, published once.
 */
export function createMaintenanceModule(
  deps: Omit<MaintenanceServiceDeps, 'changed'> & { events: EventBus; logger: Logger; pollMs?: number },
) {
  const maintenance = createMaintenanceService({
    ...deps,
    // A change is judged now: a pass in progress may have read the windows before it, so one more follows.
    changed: () => {
      announcer
        .runDue()
        .then(() => announcer.runDue())
        .catch((error: unknown) => {
          deps.logger.error({ err: error }, 'maintenance windows could not be judged after a change');
        });
    },
  });
  const announcer = createMaintenanceAnnouncer({ ...deps, maintenance });
  return defineModule({
    name: 'maintenance',
    services: { maintenance, announcer },
    handlers: maintenanceRoutes(maintenance),
    start: () => {
      announcer.start();
    },
    close: () => announcer.close(),
  });
}
