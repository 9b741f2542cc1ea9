import { buildOpenApiDocument } from '../../http/openapi.js';
import type { PrometheusTelemetry } from '../../platform/telemetry/prometheus.js';
import { defineModule } from '../module.js';
import type { TlsService } from '../tls/tls.service.js';
import { createHubHealthService, type HubHealthDeps } from './hub-health.service.js';
import { createHubStatusService, type HubStatusDeps } from './hub-status.service.js';
import { hubRawRoutes, hubRoutes } from './hub.routes.js';

/** The hub itself: health and readiness, its TLS certificate's status, its metrics, this API's OpenAPI document. */
export function createHubModule(
  deps: HubStatusDeps & {
    tls: Pick<TlsService, 'status'>;
    health: HubHealthDeps;
    telemetry: Pick<PrometheusTelemetry, 'render'>;
  },
) {
  const status = createHubStatusService(deps);
  const health = createHubHealthService(deps.health);
  return defineModule({
    name: 'hub',
    services: { status, health },
    handlers: hubRoutes({ status, tls: deps.tls }),
    rawHandlers: hubRawRoutes({
      openapi: JSON.stringify(buildOpenApiDocument()),
      health,
      telemetry: deps.telemetry,
    }),
  });
}
