import { defineModule } from '../module.js';
import { keyRoutes } from './keys.routes.js';
import { createApiKeyService, type ApiKeyServiceDeps } from './keys.service.js';

/** API keys: created once-shown, stored as hashes, verified on every request (app.ts asks `authenticate`). */
export function createKeysModule(deps: ApiKeyServiceDeps) {
  const apiKeys = createApiKeyService(deps);
  return defineModule({ name: 'keys', services: { apiKeys }, handlers: keyRoutes(apiKeys) });
}
