import { defineModule } from '../module.js';
import { createScheduler, type SchedulerDeps } from './scheduler.js';
import { scheduleRoutes } from './schedules.routes.js';
import { createScheduleService, type ScheduleServiceDeps } from './schedules.service.js';

/** Scheduled tasks: a command or a saved action at the ticks of a cron expression, each tick run once. */
export function createSchedulesModule(deps: ScheduleServiceDeps & SchedulerDeps) {
  const schedules = createScheduleService(deps);
  const scheduler = createScheduler(deps);
  return defineModule({
    name: 'schedules',
    services: { schedules, scheduler },
    handlers: scheduleRoutes(schedules),
    start: () => {
      scheduler.start();
    },
    close: () => scheduler.close(),
  });
}
