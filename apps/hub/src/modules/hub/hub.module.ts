import { buildOpenApiDocument } from '../../http/openapi.js';
import { defineModule } from '../module.js';
import type { TlsService } from '../tls/tls.service.js';
import { createHubStatusService, type HubStatusDeps } from './hub-status.service.js';
import { hubRawRoutes, hubRoutes } from './hub.routes.js';

/** The hub itself: its health, its TLS certificate's status, and this API's OpenAPI document. */
export function createHubModule(deps: HubStatusDeps & { tls: Pick<TlsService, 'status'> }) {
  const status = createHubStatusService(deps);
  return defineModule({
    name: 'hub',
    services: { status },
    handlers: hubRoutes({ status, tls: deps.tls }),
    rawHandlers: hubRawRoutes(JSON.stringify(buildOpenApiDocument())),
  });
}
