import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { ContainersService } from './containers.service.js';

export function containersRoutes(containers: ContainersService) {
  return {
    'containers.hosts': ({ query, ctx }) => containers.hosts(ctx.principal, pageRequest(query)),
    'containers.list': ({ params, query, ctx }) => containers.list(ctx, params.id, pageRequest(query)),
    'containers.start': ({ params, ctx }) => containers.action(ctx, params.id, 'start'),
    'containers.stop': ({ params, ctx }) => containers.action(ctx, params.id, 'stop'),
    'containers.restart': ({ params, ctx }) => containers.action(ctx, params.id, 'restart'),
    'containers.logs': ({ params, query, ctx }) => containers.logs(ctx, params.id, query),
    'containers.stack': ({ params, ctx }) => containers.stack(ctx, params.id),
    'containers.stacks': ({ params, query, ctx }) => containers.stacks(ctx, params.id, pageRequest(query)),
    'containers.images': ({ params, query, ctx }) => containers.images(ctx, params.id, pageRequest(query)),
    'containers.volumes': ({ params, query, ctx }) => containers.volumes(ctx, params.id, pageRequest(query)),
  } satisfies Handlers;
}
