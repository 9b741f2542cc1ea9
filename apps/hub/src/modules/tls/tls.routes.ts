import type { RouteName } from '@svc/protocol';
import type { Handlers, RawHandler } from '../../http/register-routes.js';
import type { TlsService } from './tls.service.js';

export function tlsRoutes(tls: TlsService): Handlers {
  return {
    'hub.tls': () => Promise.resolve(tls.status()),
    'settings.tlsGet': () => Promise.resolve(tls.status()),
    'settings.tlsUpload': ({ ctx, body }) => tls.upload(ctx, body),
    'settings.tlsClear': ({ ctx }) => tls.clear(ctx),
    'tls.info': () => Promise.resolve(tls.info()),
  };
}

export function tlsRawRoutes(tls: TlsService): Partial<Record<RouteName, RawHandler>> {
  return {
    'tls.caCert': async (_request, reply) =>
      reply
        .type('application/x-pem-file')
        .header('Content-Disposition', 'attachment; filename="svc-hub-ca.crt"')
        .send(tls.caCertificate()),
  };
}
