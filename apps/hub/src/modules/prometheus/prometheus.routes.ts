import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import { HubError } from '../../platform/hub-error.js';
import type { PrometheusService } from './prometheus.service.js';

export function prometheusRoutes(service: PrometheusService) {
  return {
    'prometheus.settings': () => service.settings(),
    'prometheus.exporter': ({ body, ctx }) => service.setExporter(ctx, body),
    'prometheus.remoteWrite': ({ body, ctx }) => service.setRemoteWrite(ctx, body),
    'prometheus.remoteWriteRemove': ({ ctx }) => service.removeRemoteWrite(ctx),
  } satisfies Handlers;
}

/** The discovery targets as Prometheus reads them: a bare JSON array, not the envelope. */
export function prometheusRawRoutes(service: PrometheusService) {
  return {
    'prometheus.targets': async (request, reply) => {
      const { principal } = request;
      if (principal === null) throw new HubError('unauthorized', 'a credential is required');
      const targets = await service.targets(principal);
      return reply
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(targets));
    },
  } satisfies RawHandlers;
}
