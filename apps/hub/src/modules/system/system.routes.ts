import type { Handlers } from '../../http/register-routes.js';
import type { SystemService } from './system.service.js';

export function systemRoutes(system: SystemService) {
  return {
    'system.processes': ({ params, ctx }) => system.read(ctx, params.id, 'processes.list'),
    'system.killProcess': ({ params, body, ctx }) => system.kill(ctx, params.id, body),
    'system.services': ({ params, ctx }) => system.read(ctx, params.id, 'services.list'),
    'system.startService': ({ params, ctx }) => system.serviceAction(ctx, params.id, params.name, 'start'),
    'system.stopService': ({ params, ctx }) => system.serviceAction(ctx, params.id, params.name, 'stop'),
    'system.restartService': ({ params, ctx }) =>
      system.serviceAction(ctx, params.id, params.name, 'restart'),
    'system.network': ({ params, ctx }) => system.read(ctx, params.id, 'system.network'),
    'system.disks': ({ params, ctx }) => system.read(ctx, params.id, 'system.disks'),
    'system.packages': ({ params, ctx }) => system.read(ctx, params.id, 'system.packages'),
    'system.cron': ({ params, ctx }) => system.read(ctx, params.id, 'system.cron'),
    'system.users': ({ params, ctx }) => system.read(ctx, params.id, 'system.users'),
    'system.logs': ({ params, query, ctx }) => system.logs(ctx, params.id, query),
  } satisfies Handlers;
}
