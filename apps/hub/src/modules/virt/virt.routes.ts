import type { Handlers } from '../../http/register-routes.js';
import { pageRequest } from '../../platform/db/paging.js';
import type { VirtService } from './virt.service.js';

export function virtRoutes(virt: VirtService) {
  return {
    'virt.clusterStatus': ({ query }) => virt.clusterStatus(query.connector),
    'virt.clusterResources': ({ query, ctx }) =>
      virt.resources(ctx.principal, { connector: query.connector, type: query.type }, pageRequest(query)),
    'virt.start': ({ params, ctx }) => virt.guestAction(ctx, params.id, 'start'),
    'virt.stop': ({ params, ctx }) => virt.guestAction(ctx, params.id, 'stop'),
    'virt.ceph': ({ query }) => virt.ceph(query.connector),
  } satisfies Handlers;
}
