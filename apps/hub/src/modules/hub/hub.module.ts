import { buildOpenApiDocument } from '../../http/openapi.js';
import type { PrometheusTelemetry } from '../../platform/telemetry/prometheus.js';
import { defineModule } from '../module.js';
import type { TlsService } from '../tls/tls.service.js';
import { createHubClusterService, type HubClusterDeps } from './hub-cluster.service.js';
import { createHubHealthService, type HubHealthDeps } from './hub-health.service.js';
import { createHubStatusService, type HubStatusDeps } from './hub-status.service.js';
import { hubRawRoutes, hubRoutes } from './hub.routes.js';

/** The hub itself: health and readiness, its TLS certificate's status, its metrics, this API's OpenAPI document. */
export function createHubModule(
  deps: Omit<HubStatusDeps, 'cluster' | 'assets'> & {
    assets: HubStatusDeps['assets'] & HubClusterDeps['assets'];
    /** This process's cluster: what `GET /hub/status` says of the processes and the bus. */
    cluster: Pick<HubClusterDeps, 'db' | 'bus' | 'registry'>;
    tls: Pick<TlsService, 'status'>;
    health: HubHealthDeps;
    telemetry: Pick<PrometheusTelemetry, 'render'>;
  },
) {
  const health = createHubHealthService(deps.health);
  const cluster = createHubClusterService({
    ...deps.cluster,
    assets: deps.assets,
    clock: deps.clock,
    readiness: () => health.readiness(),
    connectedAgents: deps.connectedAgents,
  });
  const status = createHubStatusService({ ...deps, cluster });
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
