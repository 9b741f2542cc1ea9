import type { FastifyReply } from 'fastify';
import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import type { PrometheusTelemetry } from '../../platform/telemetry/prometheus.js';
import type { TlsService } from '../tls/tls.service.js';
import type { HubHealthService } from './hub-health.service.js';
import type { HubStatusService } from './hub-status.service.js';

export function hubRoutes(deps: { status: HubStatusService; tls: Pick<TlsService, 'status'> }) {
  return {
    'hub.status': () => deps.status.status(),
    'hub.tls': () => Promise.resolve(deps.tls.status()),
  } satisfies Handlers;
}

/** Probes are never cached: a proxy that kept an old "ready" would hide the outage the probe is for. */
function sendProbe(reply: FastifyReply, status: number, body: object) {
  return reply
    .code(status)
    .header('cache-control', 'no-store')
    .type('application/json; charset=utf-8')
    .send(JSON.stringify(body));
}

/**
 * The OpenAPI document (built once: the same for everyone, it never changes while the hub runs) and the
 * probes, which answer in the shape load balancers read: the status code, and one word in the body.
 */
export function hubRawRoutes(deps: {
  openapi: string;
  health: HubHealthService;
  telemetry: Pick<PrometheusTelemetry, 'render'>;
}) {
  return {
    'hub.openapi': async (_request, reply) =>
      reply.type('application/json; charset=utf-8').send(deps.openapi),
    'hub.healthz': async (_request, reply) => sendProbe(reply, 200, { status: 'alive' }),
    'hub.readyz': async (_request, reply) => {
      const readiness = await deps.health.readiness();
      return sendProbe(reply, readiness.status === 'unready' ? 503 : 200, readiness);
    },
    'hub.metrics': async (_request, reply) => {
      const { contentType, body } = await deps.telemetry.render();
      return reply.header('cache-control', 'no-store').type(contentType).send(body);
    },
  } satisfies RawHandlers;
}
