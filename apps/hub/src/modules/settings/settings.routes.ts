import type { RestartResult } from '@svc/protocol';
import type { ActionContext } from '../../access/principal.js';
import type { Handlers } from '../../http/register-routes.js';
import type { TlsService } from '../tls/tls.service.js';
import type { SettingsService } from './settings.service.js';

export function settingsRoutes(deps: {
  settings: SettingsService;
  restart: (ctx: ActionContext) => Promise<RestartResult>;
  tls: Pick<TlsService, 'status' | 'upload' | 'clear'>;
}) {
  const { settings, restart, tls } = deps;
  return {
    'settings.list': () => Promise.resolve(settings.list()),
    'settings.domainGet': ({ params }) => Promise.resolve(settings.list(params.domain)),
    'settings.domainUpdate': ({ ctx, params, body }) => settings.update(ctx, params.domain, body),
    'settings.restart': ({ ctx }) => restart(ctx),
    'settings.tlsGet': () => Promise.resolve(tls.status()),
    'settings.tlsUpload': ({ ctx, body }) => tls.upload(ctx, body),
    'settings.tlsClear': ({ ctx }) => tls.clear(ctx),
  } satisfies Handlers;
}
