import type { Handlers } from '../../http/register-routes.js';
import type { DeviceOwnerService } from './device-owner.service.js';
import type { MobileService } from './mobile.service.js';

export function mobileRoutes(deviceOwner: DeviceOwnerService, mobile: MobileService) {
  return {
    'mobile.registrationOptions': ({ body, ctx }) => deviceOwner.registrationOptions(ctx, body.device_id),
    'mobile.register': ({ body, ctx }) => deviceOwner.register(ctx, body),
    'mobile.proofOptions': ({ body, ctx }) => deviceOwner.proofOptions(ctx, body.purpose),
    'mobile.proof': ({ body, ctx }) => deviceOwner.prove(ctx, body),
    'mobile.quickAction': ({ body, ctx }) => mobile.quickAction(ctx, body),
    'mobile.telemetry': ({ body, ctx }) => mobile.recordTelemetry(ctx, body),
  } satisfies Handlers;
}
