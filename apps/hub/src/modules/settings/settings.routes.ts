import type { Handlers } from '../../http/register-routes.js';
import type { SettingsService } from './settings.service.js';

export function settingsRoutes(settings: SettingsService): Handlers {
  return {
    'settings.list': () => Promise.resolve(settings.list()),
    'settings.domainGet': ({ params }) => Promise.resolve(settings.list(params.domain)),
    'settings.domainUpdate': ({ ctx, params, body }) => settings.update(ctx, params.domain, body),
  };
}
