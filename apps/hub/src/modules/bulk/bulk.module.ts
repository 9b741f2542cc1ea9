import type { Handlers } from '../../http/register-routes.js';
import { defineModule } from '../module.js';
import { createBulkService, type BulkServiceDeps } from './bulk.service.js';

/** Bulk operations over many assets, each through the single-asset path. */
export function createBulkModule(deps: BulkServiceDeps) {
  const bulk = createBulkService(deps);
  const handlers = {
    'bulk.serviceAction': ({ body, ctx }) => bulk.serviceAction(ctx, body),
  } satisfies Handlers;
  return defineModule({ name: 'bulk', services: { bulk }, handlers });
}
