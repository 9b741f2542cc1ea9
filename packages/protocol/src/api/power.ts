/** Reboot, shutdown and Wake-on-LAN. */
import { Type, type Static } from 'typebox';
import { defineRoute, type RouteContract } from '../contract.js';
import { IdParams, Maybe, assetParam } from './shared.js';

export const PowerAccepted = Type.Object({ accepted: Type.Boolean() });
export const WakeResult = Type.Object({
  mac: Type.String(),
  sent_via: Type.Enum<['hub', 'agent']>(['hub', 'agent']),
  relay_asset_id: Maybe(Type.String()),
  target: Type.String(),
});
export type WakeResult = Static<typeof WakeResult>;

export const powerContracts = {
  'power.wake': defineRoute({
    name: 'power.wake',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/wake',
    auth: 'scope',
    scope: 'assets:power',
    summary: 'Wake-on-LAN',
    asset: assetParam,
    params: IdParams,
    response: WakeResult,
  }),
  'power.reboot': defineRoute({
    name: 'power.reboot',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/reboot',
    auth: 'scope',
    scope: 'assets:power',
    summary: 'Reboot',
    asset: assetParam,
    params: IdParams,
    response: PowerAccepted,
  }),
  'power.shutdown': defineRoute({
    name: 'power.shutdown',
    surface: 'v2',
    method: 'POST',
    path: '/assets/{id}/shutdown',
    auth: 'scope',
    scope: 'assets:power',
    summary: 'Shut down',
    asset: assetParam,
    params: IdParams,
    response: PowerAccepted,
  }),
} satisfies Record<string, RouteContract>;
