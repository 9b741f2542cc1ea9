import type { Handlers, RawHandlers } from '../../http/register-routes.js';
import type { TlsService } from './tls.service.js';

export function tlsRoutes(tls: TlsService) {
  return {
    'tls.info': () => Promise.resolve(tls.info()),
  } satisfies Handlers;
}

export function tlsRawRoutes(tls: TlsService) {
  return {
    'tls.caCert': async (_request, reply) =>
      reply
        .type('application/x-pem-file')
        .header('Content-Disposition', 'attachment; filename="svc-hub-ca.crt"')
        .send(tls.caCertificate()),
  } satisfies RawHandlers;
}
