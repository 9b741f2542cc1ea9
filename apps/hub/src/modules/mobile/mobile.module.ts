import type { Kysely } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Database } from '../../platform/db/schema.js';
import type { AlertService } from '../alerts/alerts.service.js';
import type { AuditService } from '../audit/audit.service.js';
import { defineModule } from '../module.js';
import { createDeviceOwnerService } from './device-owner.service.js';
import { mobileRoutes } from './mobile.routes.js';
import { createMobileService } from './mobile.service.js';

/** The mobile companion: device-owner WebAuthn and proofs, quick actions behind them, opt-in telemetry. */
export function createMobileModule(deps: {
  db: Kysely<Database>;
  clock: Clock;
  audit: AuditService;
  alerts: AlertService;
  usernameOf: (userId: string) => Promise<string>;
  hubNames?: () => string[];
}) {
  const deviceOwner = createDeviceOwnerService(deps);
  const mobile = createMobileService({ ...deps, deviceOwner });
  return defineModule({
    name: 'mobile',
    services: { deviceOwner, mobile },
    handlers: mobileRoutes(deviceOwner, mobile),
    retention: [mobile.retention],
  });
}
