import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import type { TlsService } from '../tls/tls.service.js';
import type { HubStatusService } from './hub-status.service.js';

export function hubRoutes(deps: { status: HubStatusService; tls: Pick<TlsService, 'status'> }) {
  return {
    'hub.status': () => deps.status.status(),
    'hub.tls': () => Promise.resolve(deps.tls.status()),
  } satisfies Handlers;
}

/** The OpenAPI document, built once: it is the same for everyone and never changes while the hub runs. */
export function hubRawRoutes(openapi: string) {
  return {
    'hub.openapi': async (_request, reply) => reply.type('application/json; charset=utf-8').send(openapi),
  } satisfies RawHandlers;
}
