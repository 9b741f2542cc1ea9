import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { EventBus } from '../../platform/event-bus.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import type { TlsService } from '../tls/tls.service.js';
import { createRestartService } from './restart.service.js';
import { reloadRuntimeSettings, type RuntimeSettings } from './runtime-settings.js';
import { settingsRoutes } from './settings.routes.js';
import { createSettingsService, settingsCacheTopic } from './settings.service.js';
import type { CacheInvalidation } from '../../platform/cluster/invalidation.js';

export { loadRuntimeSettings, reloadRuntimeSettings, type RuntimeSettings } from './runtime-settings.js';

/**
 * The console's settings: runtime settings by domain (loaded before the modules with `loadRuntimeSettings`,
 * since the gateway, rate limits and enrollment read them), the TLS certificate override (through the tls
 * module's service), and the restart that settings read only at start need.
 */
export function createSettingsModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  events: EventBus;
  runtime: RuntimeSettings;
  tls: Pick<TlsService, 'status' | 'upload' | 'clear'>;
  /** How this process restarts itself (main.ts); null where a supervisor must do it. */
  requestRestart: (() => void) | null;
  invalidation?: CacheInvalidation;
}) {
  const { db, audit } = deps;
  const settings = createSettingsService(deps);
  // Another process changed settings: read them again, so its policies apply here at once (decision 0040).
  const stopReloads = deps.invalidation?.on(settingsCacheTopic, () => {
    reloads = reloads.then(() => reloadRuntimeSettings(db, deps.runtime)).catch(() => undefined);
  });
  let reloads: Promise<void> = Promise.resolve();
  const restart = createRestartService({ db, audit, requestRestart: deps.requestRestart });
  return defineModule({
    name: 'settings',
    services: { settings },
    handlers: settingsRoutes({ settings, restart, tls: deps.tls }),
    close: async () => {
      stopReloads?.();
      await reloads;
    },
  });
}
